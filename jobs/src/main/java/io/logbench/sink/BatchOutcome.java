package io.logbench.sink;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * How one batch ended at one backend, after every retry its delivery mode allowed: the unit the
 * ledger adds up (idempotently, by batch id) and the latency figures are made from.
 *
 * @param backend backend name from the run file
 * @param batchId the batch's deterministic id (see LineBatch)
 * @param firstSeq global sequence id of its first line
 * @param lines lines in the batch
 * @param status final class
 * @param httpStatus last HTTP status seen (0 for none: I/O error, timeout, non-HTTP backend)
 * @param attempts sends made (0 when aborted before sending)
 * @param scheduledNanos epoch nanoseconds the batch was due (its schedule time; for unpaced runs
 *     the time it was emitted)
 * @param latencyNanos from the scheduled time to the final answer (no coordinated omission)
 * @param serviceNanos from the last send to its answer
 * @param windows lines per window: sent, acked and rejected by reason
 * @param resends requests this delivery resent, by the cause of the answer before each (empty when
 *     none): {@code 429}, {@code 5xx}, {@code io}, {@code timeout}, {@code partial} (the retryable
 *     items of a partial answer), {@code 4xx} or {@code other}
 */
@TypeInfo(BatchOutcomeTypeInfo.Factory.class)
public record BatchOutcome(
    String backend,
    long batchId,
    long firstSeq,
    int lines,
    Status status,
    int httpStatus,
    int attempts,
    long scheduledNanos,
    long latencyNanos,
    long serviceNanos,
    List<WindowTally> windows,
    List<Resend> resends)
    implements Serializable {

  /** The reason of lines never sent because a load-test threshold stopped the backend. */
  public static final String ABORTED_REASON = "aborted";

  public BatchOutcome {
    // a mutable copy, as the serializer rebuilds it
    resends = resends == null ? new java.util.ArrayList<>() : new java.util.ArrayList<>(resends);
  }

  /** An outcome with no resend. */
  public BatchOutcome(String backend, long batchId, long firstSeq, int lines, Status status, int httpStatus,
      int attempts, long scheduledNanos, long latencyNanos, long serviceNanos, List<WindowTally> windows) {
    this(backend, batchId, firstSeq, lines, status, httpStatus, attempts, scheduledNanos, latencyNanos,
        serviceNanos, windows, null);
  }

  /**
   * Requests resent for one cause.
   *
   * @param cause the class of the answer that made the resend: {@code 429}, {@code 5xx}, {@code
   *     io}, {@code timeout}, {@code partial}, {@code 4xx} or {@code other}
   * @param requests requests resent
   * @param lines lines in those requests
   */
  public record Resend(String cause, int requests, int lines) implements Serializable {}

  /** The final class of a batch. */
  public enum Status {
    /** Every line acknowledged. */
    ACKED,
    /** Some lines acknowledged, the others rejected for good. */
    PARTIAL,
    /** No line acknowledged: rejected (4xx) or, in load-test mode, failed (429, 5xx, I/O). */
    FAILED,
    /** Not sent: the backend was stopped by a load-test threshold. */
    ABORTED
  }

  /**
   * One window's share of a batch.
   *
   * @param windowStartMillis start of the window (windows are [start, start + size))
   * @param sent lines of this window in the batch
   * @param acked lines the backend acknowledged
   * @param rejected lines not stored, by reason (e.g. {@code "400 timestamp too old"}, {@code
   *     "503"}, {@code "io"}, {@code "timeout"}, {@code "aborted"})
   */
  public record WindowTally(long windowStartMillis, int sent, int acked, Map<String, Integer> rejected)
      implements Serializable {}

  /** Lines acknowledged over all windows. */
  public int acked() {
    int n = 0;
    for (WindowTally w : windows) {
      n += w.acked();
    }
    return n;
  }
}
