package io.logbench.sink.kafka;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.StreamCatalog;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small dataset for the Kafka tests: line {@code i} is {@code line-<i> ...} (every seventh
 * with non-ASCII text) at {@code START + 10 i} ms, on stream {@code i % 3}.
 */
final class KafkaTestData implements Dataset {

  private static final long serialVersionUID = 1L;

  static final long START_MILLIS = 1_620_000_000_000L;
  static final int STREAMS = 3;
  static final StreamCatalog CATALOG = new Catalog();

  private final long size;

  KafkaTestData(long size) {
    this.size = size;
  }

  static String line(long i) {
    return "line-" + i + (i % 7 == 0 ? " größe=ü ✓" : " level=info msg=\"ok\"");
  }

  static long millis(long i) {
    return START_MILLIS + i * 10;
  }

  /** Lines {@code [firstSeq, firstSeq + n)} as batch {@code batchId}. */
  static LineBatch batch(long batchId, long firstSeq, int n) {
    LineBatch b = new LineBatch(n, 64 * n);
    b.reset(batchId, firstSeq);
    for (long i = firstSeq; i < firstSeq + n; i++) {
      byte[] bytes = line(i).getBytes(StandardCharsets.UTF_8);
      b.append(bytes, 0, bytes.length, millis(i), (int) (i % STREAMS));
    }
    return b;
  }

  @Override
  public String name() {
    return "kafka-test-" + size;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public long timestampMillis(long index) {
    return millis(index);
  }

  @Override
  public long countBefore(long epochMillis) {
    long n = Math.floorDiv(epochMillis - START_MILLIS + 9, 10);
    return Math.max(0, Math.min(size, n));
  }

  @Override
  public long endMillis() {
    return START_MILLIS + size * 10;
  }

  @Override
  public StreamCatalog streams() {
    return CATALOG;
  }

  @Override
  public LineCursor cursor(long fromIndex) {
    return new LineCursor() {
      private long position = fromIndex;

      @Override
      public long position() {
        return position;
      }

      @Override
      public void skipTo(long index) {
        if (index < position) {
          throw new IllegalStateException("Cursor at " + position + " cannot go back to " + index);
        }
        position = index;
      }

      @Override
      public void next(LineBatch batch) {
        byte[] bytes = line(position).getBytes(StandardCharsets.UTF_8);
        batch.append(bytes, 0, bytes.length, millis(position), (int) (position % STREAMS));
        position++;
      }
    };
  }

  /** Streams {@code {app="logbench",stream="s<i>"}}. */
  private static final class Catalog implements StreamCatalog {
    private static final long serialVersionUID = 1L;

    @Override
    public int size() {
      return STREAMS;
    }

    @Override
    public Map<String, String> labels(int id) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("app", "logbench");
      m.put("stream", "s" + id);
      return m;
    }

    @Override
    public List<String> labelNames() {
      return List.of("app", "stream");
    }
  }
}
