package io.logbench.delivery;

import io.logbench.dataset.LineBatch;
import io.logbench.delivery.internal.BreachBoard;
import io.logbench.delivery.internal.Deliverer;
import io.logbench.delivery.internal.DeliveryStats;
import io.logbench.delivery.internal.ExecutorTimer;
import io.logbench.delivery.internal.HistogramMetric;
import io.logbench.schedule.Schedule;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;

/**
 * Delivers each batch to one backend under its delivery mode and emits one {@link BatchOutcome}
 * per batch. Apply it with {@link #apply}, which uses Flink's unordered async operator with a
 * capacity of {@code in_flight}: the operator keeps batches in flight in its checkpoints and
 * sends them again after a restore, which, with resends until the backend takes a batch, makes
 * delivery at-least-once.
 *
 * <p>At-least-once resends retryable batches, and the retryable lines of partial answers as a
 * sub-batch of only those lines, after capped exponential backoff with full jitter, for ever;
 * lines rejected for good are counted by reason. Load-test sends once, counts every failure by
 * status, and judges the thresholds per task: the source's stripes are symmetric, so each task's
 * view is the backend's. Once a task crosses one, its later batches end {@code ABORTED} without a
 * request; the breach is logged and, by an operator chained after this one (Flink has no
 * accumulators in async functions), returned in the job's accumulator {@link #BREACHES}.
 *
 * <p>Metrics, in group {@code backend=<name>}: counters {@code linesSent}, {@code linesAcked},
 * {@code linesRetried}, {@code requests}, {@code failedRequests}, {@code linesFailed_<class>}
 * (4xx, 429, 5xx, io, timeout, aborted, other; also as {@code linesFailed} in group {@code
 * cause=<class>}), gauge {@code inFlightRequests}, histograms
 * {@code latencyFromScheduleMicros} and {@code serviceTimeMicros}.
 */
public final class DeliveryFunction extends RichAsyncFunction<LineBatch, BatchOutcome> {

  private static final long serialVersionUID = 1L;

  /** Accumulator holding the {@link ThresholdBreach}es of a job (name prefix; suffix: backend). */
  public static final String BREACHES = "logbench.breaches.";

  private final BackendSpec spec;
  private final DeliverySettings settings;
  private final RunContext run;
  private final WindowGrid grid;
  private final Schedule schedule;

  private transient BatchSender sender;
  private transient ExecutorTimer timer;
  private transient Deliverer deliverer;
  /** Unique per job build: where the chained {@link BreachReporter} finds this task's stats. */
  private final String boardKey = java.util.UUID.randomUUID().toString();
  private transient String boardEntry;

  /**
   * A delivery function for one backend.
   *
   * @param context the delivery settings, the run (its lines, id and first index), the grid, and
   *     the run's schedule: with the schedule a task knows when the run started (for the
   *     thresholds' delay); without, it counts from the first batch's scheduled time
   */
  public DeliveryFunction(BackendSpec spec, DeliveryContext context) {
    this.spec = spec;
    this.settings = context.delivery();
    this.run = context.run();
    this.grid = context.grid();
    this.schedule = context.schedule();
  }

  /**
   * Applies this function to {@code batches}. In at-least-once mode the operator has no timeout
   * of its own (resends have no end; each request has the settings' timeout); in load-test mode
   * its timeout is a safety net well past the request timeout.
   */
  public SingleOutputStreamOperator<BatchOutcome> apply(DataStream<LineBatch> batches) {
    long operatorTimeoutMillis = operatorTimeoutMillis(settings);
    String name = spec.name();
    SingleOutputStreamOperator<BatchOutcome> delivered =
        AsyncDataStream.unorderedWait(
                batches, this, operatorTimeoutMillis, TimeUnit.MILLISECONDS, settings.inFlight())
            .name("deliver[" + name + "]")
            .uid("deliver-" + name)
            .setParallelism(batches.getParallelism());
    return delivered
        .map(new BreachReporter(boardKey, name))
        .name("breaches[" + name + "]")
        .uid("breaches-" + name)
        .setParallelism(batches.getParallelism());
  }

  /** 0 (none) for at-least-once; twice the request timeout plus 10 s for load tests. */
  static long operatorTimeoutMillis(DeliverySettings settings) {
    return settings.mode() == Mode.AT_LEAST_ONCE ? 0 : 2 * settings.timeout().toMillis() + 10_000;
  }

  @Override
  public void open(OpenContext openContext) {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    sender = spec.open(run);
    timer = new ExecutorTimer("logbench-delivery-" + spec.name() + "-" + subtask);
    DeliveryStats stats = new DeliveryStats();
    deliverer =
        Deliverer.builder()
            .backend(spec.name(), subtask)
            .settings(settings)
            .sender(sender)
            .grid(grid)
            .timer(timer)
            .clock(DeliveryFunction::epochNanos)
            .random(new SplittableRandom(spec.name().hashCode() * 31L + subtask))
            .stats(stats)
            .schedule(schedule, run.firstIndex())
            .build();
    registerMetrics(getRuntimeContext().getMetricGroup().addGroup("backend", spec.name()), stats);
    boardEntry = boardKey + "/" + subtask;
    BreachBoard.put(boardEntry, stats);
  }

  private static void registerMetrics(MetricGroup group, DeliveryStats stats) {
    group.counter("linesSent", stats.linesSent);
    group.counter("linesAcked", stats.linesAcked);
    group.counter("linesRetried", stats.linesRetried);
    group.counter("requests", stats.requests);
    group.counter("failedRequests", stats.failedRequests);
    for (Map.Entry<String, org.apache.flink.metrics.Counter> e : stats.linesFailedByClass().entrySet()) {
      group.counter("linesFailed_" + e.getKey(), e.getValue());
      // the same counter with the class as a label, so a dashboard sums failures by cause
      group.addGroup("cause", e.getKey()).counter("linesFailed", e.getValue());
    }
    group.gauge("inFlightRequests", stats::inFlightRequests);
    group.histogram("latencyFromScheduleMicros", new HistogramMetric(stats::latencyFromSchedule));
    group.histogram("serviceTimeMicros", new HistogramMetric(stats::serviceTime));
  }

  @Override
  public void asyncInvoke(LineBatch batch, ResultFuture<BatchOutcome> resultFuture) {
    deliverer.deliver(batch, o -> resultFuture.complete(List.of(o)), resultFuture::completeExceptionally);
  }

  /**
   * Only load tests have an operator timeout, and it fires only if the request timer did not:
   * the batch then ends as failed by {@code timeout}, like a request that timed out.
   */
  @Override
  public void timeout(LineBatch batch, ResultFuture<BatchOutcome> resultFuture) {
    if (settings.mode() == Mode.AT_LEAST_ONCE) {
      // Unreachable: at-least-once has no operator timeout. Failing restores the batch from the
      // last checkpoint rather than dropping it.
      resultFuture.completeExceptionally(new IllegalStateException(
          "Batch " + batch.batchId() + " of backend " + spec.name() + " timed out in the operator."));
      return;
    }
    Map<Long, Integer> sent = new java.util.TreeMap<>();
    for (int k = 0; k < batch.count(); k++) {
      sent.merge(grid.windowStart(batch.timestampMillis(k)), 1, Integer::sum);
    }
    List<BatchOutcome.WindowTally> windows = new ArrayList<>();
    sent.forEach((w, n) -> windows.add(new BatchOutcome.WindowTally(w, n, 0, Map.of("timeout", n))));
    long now = epochNanos();
    long latency = batch.scheduledNanos() == 0 ? 0 : now - batch.scheduledNanos();
    resultFuture.complete(List.of(new BatchOutcome(spec.name(), batch.batchId(), batch.firstSeq(),
        batch.count(), BatchOutcome.Status.FAILED, 0, 1, batch.scheduledNanos(), latency, 0,
        List.copyOf(windows))));
  }

  @Override
  public void close() throws Exception {
    if (timer != null) {
      timer.close();
    }
    if (sender != null) {
      sender.close();
    }
  }

  /** Epoch nanoseconds, as the source schedules by. */
  static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
