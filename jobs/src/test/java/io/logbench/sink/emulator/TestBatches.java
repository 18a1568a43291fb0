package io.logbench.sink.emulator;

import io.logbench.dataset.LineBatch;
import java.nio.charset.StandardCharsets;

/** Small hand-made batches for backend tests. */
public final class TestBatches {

  /** 2021-05-01T03:00:00Z, seed 004's first midnight in Sao Paulo. */
  public static final long MAY_2021_MILLIS = 1_619_838_000_000L;

  private TestBatches() {}

  /**
   * A batch of {@code lines} lines starting at sequence id {@code firstSeq}, line {@code k} at
   * {@code startMillis + k * stepMillis} in stream {@code k % streams}, text with characters JSON
   * must escape and non-ASCII ones.
   */
  public static LineBatch batch(long firstSeq, int lines, long startMillis, long stepMillis, int streams) {
    LineBatch b = new LineBatch();
    b.reset(firstSeq / Math.max(1, lines), firstSeq);
    for (int k = 0; k < lines; k++) {
      byte[] text = line(firstSeq + k).getBytes(StandardCharsets.UTF_8);
      b.append(text, 0, text.length, startMillis + k * stepMillis, k % streams);
    }
    return b;
  }

  /** The text of line {@code seq}: a quote, a backslash, a tab and a non-ASCII character. */
  public static String line(long seq) {
    return "{\"seq\":" + seq + ",\"msg\":\"GET /a\\\\b\tção\"}";
  }
}
