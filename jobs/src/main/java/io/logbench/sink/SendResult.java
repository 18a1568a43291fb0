package io.logbench.sink;

import java.util.BitSet;
import java.util.List;

/**
 * What a backend made of one batch, classified: every line of the batch is either accepted,
 * rejected for a reason (counted, never retried) or left to retry (429, 5xx, I/O, timeouts, and
 * the per-item 429/5xx of a bulk answer).
 *
 * @param kind the batch's overall class
 * @param status HTTP status, or 0 when there was no HTTP answer (I/O error, timeout, Kafka)
 * @param accepted lines the backend took (as far as its answer says)
 * @param rejections lines rejected for good, by reason
 * @param retry lines to send again (indexes within the batch); empty unless kind is RETRYABLE or
 *     PARTIAL
 * @param detail a short description of the failure for reports (bounded, never a secret), or ""
 */
public record SendResult(
    Kind kind, int status, int accepted, List<Rejection> rejections, BitSet retry, String detail) {

  /**
   * How the detail of a send starts when the backend took the request but did not acknowledge it
   * within the sender's ack timeout (Splunk HEC indexer acknowledgement): the lines are retryable,
   * and a load test counts them under this reason, apart from requests that got no answer.
   */
  public static final String ACK_TIMEOUT = "ack timeout";

  /** The overall class of a send. */
  public enum Kind {
    /** Every line was taken. */
    ACCEPTED,
    /** Some lines were taken; others were rejected or are to be retried. */
    PARTIAL,
    /** Nothing was taken and the whole batch may be retried (429, 5xx, I/O error, timeout). */
    RETRYABLE,
    /** Nothing was taken and retrying cannot help (other 4xx, bad token, garbage answer). */
    FATAL
  }

  /**
   * Lines rejected for one reason.
   *
   * @param reason short stable reason, e.g. {@code "400 timestamp too old"} or {@code "409
   *     version_conflict"}
   * @param count how many lines
   * @param lines which lines (indexes within the batch) when the backend says, else null
   */
  public record Rejection(String reason, int count, BitSet lines) {}

  public static SendResult accepted(int lines, int status) {
    return new SendResult(Kind.ACCEPTED, status, lines, List.of(), new BitSet(), "");
  }

  public static SendResult retryable(int lines, int status, String detail) {
    BitSet all = new BitSet(lines);
    all.set(0, lines);
    return new SendResult(Kind.RETRYABLE, status, 0, List.of(), all, bounded(detail));
  }

  public static SendResult fatal(int lines, int status, String reason, String detail) {
    return new SendResult(
        Kind.FATAL, status, 0, List.of(new Rejection(reason, lines, null)), new BitSet(), bounded(detail));
  }

  /** Lines rejected for good, over all reasons. */
  public int rejectedCount() {
    int n = 0;
    for (Rejection r : rejections) {
      n += r.count();
    }
    return n;
  }

  /** At most 300 characters of a backend's answer, for reports. */
  public static String bounded(String detail) {
    if (detail == null) {
      return "";
    }
    String oneLine = detail.replace('\n', ' ').replace('\r', ' ');
    return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300) + "...";
  }
}
