package io.logbench.sink.internal;

import io.logbench.dataset.JsonEscaping;
import io.logbench.dataset.LineBatch;
import java.nio.charset.StandardCharsets;

/** Small batches with chosen lines, times and streams, for sender tests. */
public final class TestBatches {

  private TestBatches() {}

  /**
   * A batch of {@code lines}, line k at {@code startMillis + k} on stream {@code streams[k %
   * streams.length]}.
   */
  public static LineBatch of(long batchId, long firstSeq, long startMillis, int[] streams, String... lines) {
    LineBatch b = new LineBatch(lines.length, 256);
    b.reset(batchId, firstSeq);
    for (int k = 0; k < lines.length; k++) {
      byte[] bytes = lines[k].getBytes(StandardCharsets.UTF_8);
      b.append(bytes, 0, bytes.length, startMillis + k, streams[k % streams.length]);
    }
    return b;
  }

  /** The lines of {@code raw} in a new batch that holds them escaped for a JSON string. */
  public static LineBatch escaped(LineBatch raw) {
    LineBatch b = new LineBatch(raw.count(), 256);
    b.setJsonEscaped(true);
    b.reset(raw.batchId(), raw.firstSeq());
    b.setScheduledNanos(raw.scheduledNanos());
    for (int k = 0; k < raw.count(); k++) {
      byte[] e = JsonEscaping.escape(raw.rawLine(k));
      b.append(e, 0, e.length, raw.timestampMillis(k), raw.stream(k));
    }
    return b;
  }
}
