package io.logbench.visibility;

import io.logbench.count.CountReader;
import io.logbench.delivery.internal.HistogramMetric;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Polls a sample of one backend's batches until they are countable, after its outcomes: the task
 * thread only hands sampled outcomes to a {@link VisibilityTracker}; one scheduled thread per
 * operator (parallelism 1 per backend, so one per backend) does every read, on a timer. At the end
 * of input the task waits, once, until the samples and the end-of-run count settle (each bounded
 * by the timeout), then puts the {@link VisibilityReport} in the job's accumulator {@link
 * #ACCUMULATOR} plus the backend's name. Pending samples are not checkpointed: after a restore the
 * samples handed before it are not polled.
 *
 * <p>Metrics, in group {@code backend=<name>}: histograms {@code visibleFromAckMicros} and {@code
 * visibleFromScheduleMicros} (and the latter as a Prometheus histogram in seconds, {@code
 * visibleFromScheduleSeconds_bucket} by {@code le}, {@link io.logbench.metrics.HistogramBuckets}),
 * counters {@code visibilitySamples} (batches sampled so far), gauge
 * {@code visibilityPending}.
 */
public final class VisibilityOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<BatchOutcome, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  /** The accumulator holding a backend's {@link VisibilityReport} (name prefix; suffix: backend). */
  public static final String ACCUMULATOR = "logbench.visibility.";

  private final BackendSpec spec;
  private final RunContext run;
  private final VisibilitySettings settings;
  private final long[] span;
  private final WindowGrid grid;

  private transient CountReader reader;
  private transient VisibilityTracker tracker;
  private transient ScheduledExecutorService poller;
  private transient ListAccumulator<VisibilityReport> reports;
  private transient Counter samples;

  /**
   * @param span the run's first line time and last line time + 1 ms
   * @param grid the run's windows
   */
  public VisibilityOperator(BackendSpec spec, RunContext run, VisibilitySettings settings, long[] span,
      WindowGrid grid) {
    this.spec = spec;
    this.run = run;
    this.settings = settings;
    this.span = span.clone();
    this.grid = grid;
  }

  @Override
  public void open() throws Exception {
    super.open();
    reader = spec.openProbe(run);
    tracker = new VisibilityTracker(spec.name(), reader, run, spec.capabilities().lineIds(), settings,
        VisibilityOperator::epochNanos, span, grid);
    reports = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(ACCUMULATOR + spec.name(), reports);
    MetricGroup group = getMetricGroup().addGroup("backend", spec.name());
    samples = group.counter("visibilitySamples");
    group.gauge("visibilityPending", tracker::pendingSamples);
    group.histogram("visibleFromAckMicros", new HistogramMetric(tracker::fromAckMicros));
    group.histogram("visibleFromScheduleMicros", new HistogramMetric(tracker::fromScheduleMicros));
    // the same as a Prometheus histogram in seconds, for alert rules (a summary cannot be aggregated)
    io.logbench.metrics.HistogramBuckets.register(group, "visibleFromScheduleSeconds", tracker::fromScheduleMicros,
        io.logbench.metrics.HistogramBuckets.DEFAULT_BOUNDS_SECONDS);
    String thread = "logbench-visibility-" + spec.name();
    poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, thread);
      t.setDaemon(true);
      return t;
    });
    poller.schedule(this::round, settings.poll().toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * One round of polls, then the next after {@code poll}, or after as long as this round took when
   * that is longer: the poller is never busy more than half of its time, however slow the reads.
   */
  private void round() {
    long t0 = System.nanoTime();
    try {
      tracker.poll();
    } finally {
      long took = System.nanoTime() - t0;
      if (!tracker.done() && !poller.isShutdown()) {
        poller.schedule(this::round, Math.max(settings.poll().toNanos(), took), TimeUnit.NANOSECONDS);
      }
    }
  }

  @Override
  public void processElement(StreamRecord<BatchOutcome> element) {
    if (tracker.offer(element.getValue())) {
      samples.inc();
    }
  }

  /**
   * Waits until the samples and the end-of-run count settle: each is bounded by the timeout, so
   * this waits at most about twice the timeout.
   */
  @Override
  public void endInput() throws Exception {
    tracker.endOfInput();
    tracker.awaitDone(2 * settings.timeout().toNanos() + 4 * settings.poll().toNanos()
        + TimeUnit.SECONDS.toNanos(10));
    reports.add(tracker.report());
  }

  @Override
  public void close() throws Exception {
    try {
      if (poller != null) {
        poller.shutdownNow();
        poller.awaitTermination(10, TimeUnit.SECONDS);
      }
      if (reader != null) {
        reader.close();
      }
    } finally {
      super.close();
    }
  }

  private static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
