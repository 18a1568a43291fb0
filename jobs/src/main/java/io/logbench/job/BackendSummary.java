package io.logbench.job;

import io.logbench.replay.Replays;
import io.logbench.schedule.LadderSchedule;
import io.logbench.schedule.LadderStep;
import io.logbench.schedule.Schedule;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.LatencyHistogram;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one backend made of a generate run, added up from its {@link BatchOutcome}s at the client
 * as they arrive (no outcome is kept): lines acked and failed by reason, latency from schedule,
 * and for a ladder schedule one {@link StepRow} per step.
 *
 * <p>Step rows are computed here, at the client, rather than in an operator: the outcomes already
 * come to the client for the summary, and the arithmetic needs only the schedule.
 */
public final class BackendSummary {

  private final String backend;
  private final DeliverySettings.Mode mode;
  private final long expectedLines;
  private final Schedule schedule;
  private final long firstIndex;
  private final List<LadderStep> steps;
  private final StepAcc[] stepAccs;

  private long batches;
  private long lines;
  private long acked;
  private long attempts;
  private long firstScheduledNanos = Long.MAX_VALUE;
  private long lastAnswerNanos;
  private final Map<String, Long> failed = new TreeMap<>();
  /** Requests and lines resent by the deliveries, by cause. */
  private final Map<String, long[]> resent = new TreeMap<>();
  private Replays replays = Replays.none();
  private final Map<BatchOutcome.Status, Long> statuses = new TreeMap<>();
  private final LatencyHistogram latencyMicros = new LatencyHistogram();
  private final LatencyHistogram serviceMicros = new LatencyHistogram();

  /** A step's sums: acked lines due in its hold, latency and failures of batches due in it. */
  private static final class StepAcc {
    long ackedInHold;
    final LatencyHistogram latencyMicros = new LatencyHistogram();
    final Map<String, Long> failed = new TreeMap<>();
  }

  public BackendSummary(String backend, DeliverySettings.Mode mode, long expectedLines, Schedule schedule,
      long firstIndex) {
    this.backend = backend;
    this.mode = mode;
    this.expectedLines = expectedLines;
    this.schedule = schedule;
    this.firstIndex = firstIndex;
    this.steps = schedule instanceof LadderSchedule ladder ? ladder.steps() : List.of();
    this.stepAccs = new StepAcc[steps.size()];
    for (int j = 0; j < stepAccs.length; j++) {
      stepAccs[j] = new StepAcc();
    }
  }

  /**
   * What the backend has come to so far, for progress lines while the run goes: safe to call from
   * another thread than the one adding outcomes.
   *
   * @param lines lines of the batches that ended
   * @param acked lines acknowledged
   * @param failed lines not acknowledged, by reason
   * @param p95Micros the 95th percentile of latency from schedule so far, microseconds
   */
  public record Progress(long lines, long acked, Map<String, Long> failed, long p95Micros) {

    /** Lines not acknowledged, every reason. */
    public long failedLines() {
      return failed.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** A consistent view of the sums so far (see {@link Progress}). */
  public synchronized Progress progress() {
    return new Progress(lines, acked, Map.copyOf(failed),
        latencyMicros.count() == 0 ? 0 : latencyMicros.percentile(95));
  }

  /** Adds one batch's outcome (synchronized with {@link #progress}, read by another thread). */
  public synchronized void add(BatchOutcome o) {
    batches++;
    lines += o.lines();
    int ackedLines = o.acked();
    acked += ackedLines;
    attempts += o.attempts();
    for (BatchOutcome.Resend r : o.resends()) {
      long[] n = resent.computeIfAbsent(r.cause(), c -> new long[2]);
      n[0] += r.requests();
      n[1] += r.lines();
    }
    statuses.merge(o.status(), 1L, Long::sum);
    Map<String, Long> batchFailed = new TreeMap<>();
    for (BatchOutcome.WindowTally w : o.windows()) {
      w.rejected().forEach((reason, n) -> batchFailed.merge(reason, (long) n, Long::sum));
    }
    batchFailed.forEach((reason, n) -> failed.merge(reason, n, Long::sum));
    boolean measured = o.status() != BatchOutcome.Status.ABORTED;
    if (measured) {
      firstScheduledNanos = Math.min(firstScheduledNanos, o.scheduledNanos());
      lastAnswerNanos = Math.max(lastAnswerNanos, o.scheduledNanos() + o.latencyNanos());
      latencyMicros.record(o.latencyNanos() / 1_000);
      serviceMicros.record(o.serviceNanos() / 1_000);
    }
    if (steps.isEmpty()) {
      return;
    }
    long first = o.firstSeq() - firstIndex;
    long due = schedule.dueNanos(Math.max(0, first));
    for (int j = 0; j < steps.size(); j++) {
      LadderStep s = steps.get(j);
      StepAcc acc = stepAccs[j];
      if (o.status() == BatchOutcome.Status.ACKED) {
        // exact: the batch's lines whose due time falls in the hold
        long lo = s.holdStartNanos() == 0 ? 0 : schedule.dueBy(s.holdStartNanos() - 1);
        long hi = schedule.dueBy(s.holdEndNanos() - 1);
        acc.ackedInHold += Math.max(0, Math.min(hi, first + o.lines()) - Math.max(lo, first));
      } else if (due >= s.holdStartNanos() && due < s.holdEndNanos()) {
        acc.ackedInHold += ackedLines; // which lines is not known by time; the batch's due time decides
      }
      if (due >= s.holdStartNanos() && due < s.holdEndNanos()) {
        if (measured) {
          acc.latencyMicros.record(o.latencyNanos() / 1_000);
        }
        batchFailed.forEach((reason, n) -> acc.failed.merge(reason, n, Long::sum));
      }
    }
  }

  /**
   * Epoch ns of the earliest scheduled time of a batch sent (the run's first send, as a batch is
   * sent when due), or {@link Long#MAX_VALUE} when none was.
   */
  public synchronized long firstScheduledNanos() {
    return firstScheduledNanos;
  }

  /** Epoch ns of the latest final answer to a batch, or 0 when none came. */
  public synchronized long lastAnswerNanos() {
    return lastAnswerNanos;
  }

  public String backend() {
    return backend;
  }

  public DeliverySettings.Mode mode() {
    return mode;
  }

  /** Lines the run was to send this backend. */
  public long expectedLines() {
    return expectedLines;
  }

  public long batches() {
    return batches;
  }

  /** Lines of the batches that ended (sent or aborted). */
  public long lines() {
    return lines;
  }

  public long acked() {
    return acked;
  }

  /**
   * Requests of the outcomes that count, resends included. A restore rolls back the outcomes the
   * failed attempt emitted after its checkpoint, and with them its requests: see {@link #requests}.
   */
  public long attempts() {
    return attempts;
  }

  /**
   * Requests made: {@link #attempts} plus one per batch a restore sent again (the failed attempt's
   * send of it, whose outcome the restore rolled back; retries the failed attempt made of it are
   * not known). The replayed batches come from the restore records: in-flight batches exactly,
   * re-emitted ones up to the stripe's lease, so this can count a few batches of each restored
   * stripe that the failed attempt never sent.
   */
  public long requests() {
    return attempts + replays.batches();
  }

  /** Adds what restores sent again to this backend (its restore records). */
  public void replays(Replays records) {
    this.replays = records;
  }

  /** The restore records of this backend. */
  public Replays replays() {
    return replays;
  }

  /**
   * Requests resent, by cause: {@code 429}, {@code 5xx}, {@code io}, {@code timeout}, {@code
   * partial}, {@code 4xx}, {@code other} (retries of a delivery), and {@code replay} (batches a
   * restore sent again); sorted by cause.
   */
  public Map<String, Long> resentRequests() {
    return resentBy(0, replays.batches());
  }

  /** Lines in the resent requests, by cause, as {@link #resentRequests}. */
  public Map<String, Long> resentLines() {
    return resentBy(1, replays.lines());
  }

  private Map<String, Long> resentBy(int k, long replayed) {
    Map<String, Long> out = new TreeMap<>();
    resent.forEach((cause, n) -> out.put(cause, n[k]));
    if (replayed > 0) {
      out.put(REPLAY, replayed);
    }
    return Collections.unmodifiableMap(out);
  }

  /** The resend cause of batches sent again after a restore. */
  public static final String REPLAY = "replay";

  /** Lines not acknowledged, by reason (e.g. {@code "503"}, {@code "aborted"}). */
  public Map<String, Long> failed() {
    return Collections.unmodifiableMap(failed);
  }

  public Map<BatchOutcome.Status, Long> statuses() {
    return Collections.unmodifiableMap(statuses);
  }

  /** Microseconds from each batch's scheduled time to its final answer (aborted ones left out). */
  public LatencyHistogram latencyMicros() {
    return latencyMicros.copy();
  }

  /** Microseconds of each batch's last request. */
  public LatencyHistogram serviceMicros() {
    return serviceMicros.copy();
  }

  /** Every line of the run acknowledged. */
  public boolean allAcked() {
    return acked == expectedLines;
  }

  /** One row per ladder step; empty for other schedules. */
  public List<StepRow> steps() {
    List<StepRow> rows = new ArrayList<>();
    for (int j = 0; j < steps.size(); j++) {
      LadderStep s = steps.get(j);
      StepAcc acc = stepAccs[j];
      double holdSeconds = (s.holdEndNanos() - s.holdStartNanos()) / 1e9;
      rows.add(new StepRow(backend, s.index(), s.targetRate(), holdSeconds, acc.ackedInHold,
          holdSeconds > 0 ? acc.ackedInHold / holdSeconds : Double.NaN,
          acc.latencyMicros.count(), acc.latencyMicros.percentile(50), acc.latencyMicros.percentile(95),
          acc.latencyMicros.percentile(99), acc.latencyMicros.max(), Map.copyOf(acc.failed)));
    }
    return rows;
  }
}
