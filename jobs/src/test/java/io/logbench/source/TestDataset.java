package io.logbench.source;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.StreamCatalog;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** A tiny dataset for tests: line {@code i} is {@code line-<i>} at {@code start + 10 i} ms. */
final class TestDataset implements Dataset {

  private static final long serialVersionUID = 1L;

  static final long START_MILLIS = 1_620_000_000_000L;
  static final int STREAMS = 3;

  private final long size;

  TestDataset(long size) {
    this.size = size;
  }

  static String line(long index) {
    return "line-" + index;
  }

  @Override
  public String name() {
    return "test-" + size;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public long timestampMillis(long index) {
    return START_MILLIS + index * 10;
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
    return new StreamCatalog() {
      @Override
      public int size() {
        return STREAMS;
      }

      @Override
      public Map<String, String> labels(int id) {
        return Map.of("stream", "s" + id);
      }

      @Override
      public List<String> labelNames() {
        return List.of("stream");
      }
    };
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
        if (position >= size) {
          throw new IllegalStateException("No line " + position + " in " + name());
        }
        byte[] bytes = line(position).getBytes(StandardCharsets.UTF_8);
        batch.append(bytes, 0, bytes.length, timestampMillis(position), (int) (position % STREAMS));
        position++;
      }
    };
  }
}
