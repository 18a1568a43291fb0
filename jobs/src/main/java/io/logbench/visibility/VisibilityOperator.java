package io.logbench.visibility;

import io.logbench.count.VisibilityProbe;
import io.logbench.delivery.internal.DeliveryTimer;
import io.logbench.delivery.internal.ExecutorTimer;
import io.logbench.metrics.HistogramMetric;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.YieldingOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls a sample of one backend's batches until they are countable, after its outcomes
 * (parallelism 1 per backend). Outcomes reach a {@link VisibilityTracker} on the task thread; the
 * polls never run there. Every {@code poll} a round on the operator's own visibility thread
 * ({@link ExecutorTimer}, which wakes four times a second with the default poll) asks the
 * backend's {@link VisibilityProbe} for every pending sample in one request; the answer, written
 * and read on the HTTP I/O thread, is handed back to the visibility thread, which settles the round
 * and schedules the next.
 *
 * <p>Not on the task thread, because that thread sleeps through the source's short waits between
 * batches (a 20k-lines/s run's 5 ms) and takes its mails only after the next batch is sent: a
 * round there ran on top of the push just sent, and its query reached the backend with it. Those
 * pushes were answered later and moved the run's p95 (docs/benchmarks.md, twenty-third round);
 * from the visibility thread a round goes out at its own time.
 *
 * <p>At the end of input the task takes mails until the samples and the end-of-run count settle
 * (the visibility thread mails it after each round from then on), each bounded by the timeout,
 * then puts the {@link VisibilityReport} in the job's accumulator {@link #ACCUMULATOR} plus the
 * backend's name. Pending samples are not checkpointed: after a restore the samples handed before
 * it are not polled.
 *
 * <p>Metrics, in group {@code backend=<name>}: histograms {@code visibleFromAckMicros} and {@code
 * visibleFromScheduleMicros} (and the latter as a Prometheus histogram in seconds, {@code
 * visibleFromScheduleSeconds_bucket} by {@code le}, {@link io.logbench.metrics.HistogramBuckets}),
 * counters {@code visibilitySamples} (batches sampled so far), gauge
 * {@code visibilityPending}.
 */
public final class VisibilityOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<BatchOutcome, Void>, BoundedOneInput, YieldingOperator<Void> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(VisibilityOperator.class);

  /** The accumulator holding a backend's {@link VisibilityReport} (name prefix; suffix: backend). */
  public static final String ACCUMULATOR = "logbench.visibility.";

  private final BackendSpec spec;
  private final RunContext run;
  private final VisibilitySettings settings;
  private final long[] span;
  private final WindowGrid grid;

  private transient MailboxExecutor mailbox;
  private transient VisibilityProbe probe;
  private transient VisibilityTracker tracker;
  /** The visibility thread: rounds, and the answers handed back from the I/O thread. */
  private transient ExecutorTimer timer;
  private transient volatile DeliveryTimer.Cancellable next;
  private transient ListAccumulator<VisibilityReport> reports;
  private transient Counter samples;
  /** Requests of the current round not answered yet (visibility thread). */
  private transient int outstanding;
  private transient long roundStartNanos;
  /** Set by {@link #endInput}: from then on each settled round wakes the waiting task. */
  private transient volatile boolean inputEnded;
  private transient volatile boolean closed;
  /** What stopped the polls on the visibility thread, thrown on the task thread at its next step. */
  private transient volatile Throwable broken;

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
  public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
    this.mailbox = mailboxExecutor;
  }

  @Override
  public void open() throws Exception {
    super.open();
    if (mailbox == null) {
      throw new IllegalStateException("The visibility operator of backend " + spec.name()
          + " was not given its task's mailbox.");
    }
    probe = spec.openProbe(run);
    tracker = new VisibilityTracker(spec.name(), probe.reach(), probe.maxSamples(), run, settings,
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
    timer = new ExecutorTimer("logbench-visibility-" + spec.name());
    next = timer.schedule(guarded(this::round), settings.poll().toNanos());
  }

  /**
   * {@code step} for the visibility thread: an exception there stops the polls, wakes the task and
   * fails it at its next outcome or at the end of input, as it would have on the task thread.
   */
  private Runnable guarded(Runnable step) {
    return () -> {
      try {
        step.run();
      } catch (RuntimeException | Error e) {
        broken = e;
        LOG.error("The visibility polls of backend {} stopped.", spec.name(), e);
        wakeTask();
      }
    };
  }

  private void failIfBroken() {
    Throwable e = broken;
    if (e != null) {
      throw new IllegalStateException("The visibility polls of backend " + spec.name() + " stopped: " + e, e);
    }
  }

  /**
   * One round, on the visibility thread: one request for the pending samples, and after the end of
   * input one for the run.
   */
  private void round() {
    next = null;
    if (closed || tracker.done()) {
      return;
    }
    roundStartNanos = System.nanoTime();
    VisibilityTracker.Round r = tracker.startRound();
    List<VisibilityProbe.Sample> asked = r.samples();
    outstanding = (asked.isEmpty() ? 0 : 1) + (r.countRun() ? 1 : 0);
    if (outstanding == 0) {
      roundDone();
      return;
    }
    if (!asked.isEmpty()) {
      probe.countSamples(asked, answer(counts -> tracker.samplesCounted(r, counts), () -> tracker.samplesFailed(r)));
    }
    if (r.countRun()) {
      long[] s = tracker.runSpan();
      probe.countRun(s[0], s[1], s[2], answer(counts -> tracker.runCounted(counts[0]), tracker::runCountFailed));
    }
  }

  /** An answer that hands its counts, or its failure, to the visibility thread. */
  private VisibilityProbe.Answer answer(Consumer<long[]> counted, Runnable failed) {
    return new VisibilityProbe.Answer() {
      @Override
      public void counted(long[] counts) {
        onVisibilityThread(() -> counted.accept(counts));
      }

      @Override
      public void failed(Throwable error) {
        onVisibilityThread(() -> {
          LOG.debug("A visibility poll of backend {} failed: {}", spec.name(), error.toString());
          failed.run();
        });
      }
    };
  }

  private void onVisibilityThread(Runnable step) {
    try {
      timer.execute(guarded(() -> {
        if (closed) {
          return;
        }
        step.run();
        if (--outstanding == 0) {
          roundDone();
        }
      }));
    } catch (RuntimeException e) {
      // the operator closed its timer: nothing waits for this answer any more
      LOG.debug("A visibility answer of backend {} came after its operator closed.", spec.name());
    }
  }

  /**
   * Settles the round and schedules the next after {@code poll}, or after as long as this round
   * took when that is longer: the backend is never asked more than half of the time.
   */
  private void roundDone() {
    tracker.finishRound();
    if (!tracker.done() && !closed) {
      long took = System.nanoTime() - roundStartNanos;
      next = timer.schedule(guarded(this::round), Math.max(settings.poll().toNanos(), took));
    }
    if (inputEnded) {
      wakeTask();
    }
  }

  /** Lets {@link #endInput}'s wait look at the tracker again. */
  private void wakeTask() {
    try {
      mailbox.execute(() -> {}, "logbench visibility round settled");
    } catch (RuntimeException e) {
      // the task is gone (its mailbox closed): nothing waits any more
      LOG.debug("A visibility round of backend {} settled after its task ended.", spec.name());
    }
  }

  @Override
  public void processElement(StreamRecord<BatchOutcome> element) {
    failIfBroken();
    if (tracker.offer(element.getValue())) {
      samples.inc();
    }
  }

  /**
   * Takes mails until the samples and the end-of-run count settle (each round settled from now on
   * mails the task): each is bounded by the timeout, so this waits at most about twice the timeout.
   */
  @Override
  public void endInput() throws Exception {
    tracker.endOfInput();
    inputEnded = true;
    long deadline = System.nanoTime() + 2 * settings.timeout().toNanos() + 4 * settings.poll().toNanos()
        + TimeUnit.SECONDS.toNanos(10);
    while (!tracker.done() && broken == null && System.nanoTime() - deadline < 0) {
      mailbox.yield();
    }
    failIfBroken();
    reports.add(tracker.report());
  }

  @Override
  public void close() throws Exception {
    closed = true;
    try {
      if (next != null) {
        next.cancel();
      }
      if (timer != null) {
        timer.close();
      }
      if (probe != null) {
        probe.close();
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
