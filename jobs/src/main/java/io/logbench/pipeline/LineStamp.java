package io.logbench.pipeline;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Puts the run's id and the line's sequence id into the body of every line a pipeline writes, so
 * the line is recognised wherever an agent delivers it, whatever the agent does to the record
 * around it (rewrites it, adds labels, stamps its own read time). A JSON object line gets two
 * fields first, {@code {"logbench_run":"<run>","logbench_seq":<seq>,...}}, which a JSON parser
 * in the agent turns into fields; any other line gets them appended as {@code
 * logbench_run=<run> logbench_seq=<seq>} (logfmt, for a logfmt or regex parser). The rest of the
 * line is unchanged, byte for byte.
 */
public final class LineStamp {

  /** The field that carries the run's id. */
  public static final String RUN = RunContext.RUN_FIELD;
  /** The field that carries the line's sequence id. */
  public static final String SEQ = "logbench_seq";

  private final byte[] jsonHead;
  private final byte[] textHead;
  private final byte[] digits = new byte[20];

  /** Stamps for the run {@code runId} (letters, digits, '.', '_' and '-': nothing to escape). */
  public LineStamp(String runId) {
    Objects.requireNonNull(runId, "A pipeline stamps the run's id on its lines; the run has none.");
    if (!RunContext.RUN_ID.matcher(runId).matches()) {
      throw new IllegalArgumentException("A run id is 1 to 128 letters, digits, '.', '_' or '-', not \"" + runId + "\".");
    }
    this.jsonHead = ("{\"" + RUN + "\":\"" + runId + "\",\"" + SEQ + "\":").getBytes(StandardCharsets.US_ASCII);
    this.textHead = (" " + RUN + "=" + runId + " " + SEQ + "=").getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * {@code in}'s lines, stamped, into {@code out} (reset first to {@code in}'s batch id and
   * first id): same ids, timestamps, streams and scheduled time.
   */
  public void stamp(LineBatch in, LineBatch out) {
    out.reset(in.batchId(), in.firstSeq());
    out.setScheduledNanos(in.scheduledNanos());
    byte[] src = in.rawData();
    long[] ids = in.consecutive() ? null : new long[in.count()];
    for (int k = 0; k < in.count(); k++) {
      long seq = in.seq(k);
      if (ids != null) {
        ids[k] = seq;
      }
      int from = in.start(k);
      int len = in.length(k);
      int n = digits(seq);
      int at = out.reserve(len + textHead.length + n + 2);
      byte[] dst = out.data();
      int p = at;
      if (len > 0 && src[from] == '{') {
        System.arraycopy(jsonHead, 0, dst, p, jsonHead.length);
        p += jsonHead.length;
        System.arraycopy(digits, digits.length - n, dst, p, n);
        p += n;
        boolean empty = len == 2 && src[from + 1] == '}';
        if (!empty) {
          dst[p++] = ',';
        }
        System.arraycopy(src, from + 1, dst, p, len - 1);
        p += len - 1;
      } else {
        System.arraycopy(src, from, dst, p, len);
        p += len;
        System.arraycopy(textHead, 0, dst, p, textHead.length);
        p += textHead.length;
        System.arraycopy(digits, digits.length - n, dst, p, n);
        p += n;
      }
      out.commitLine(p, in.timestampMillis(k), in.stream(k));
    }
    if (ids != null) {
      out.setSequenceIds(ids);
    }
  }

  /** A stamped copy of {@code in}. */
  public LineBatch stamp(LineBatch in) {
    LineBatch out = new LineBatch(Math.max(1, in.count()), in.byteSize() + in.count() * (textHead.length + 21));
    stamp(in, out);
    return out;
  }

  /** Writes {@code v} (not negative) right-aligned into {@link #digits}; returns its length. */
  private int digits(long v) {
    int p = digits.length;
    do {
      digits[--p] = (byte) ('0' + (v % 10));
      v /= 10;
    } while (v > 0);
    return digits.length - p;
  }
}
