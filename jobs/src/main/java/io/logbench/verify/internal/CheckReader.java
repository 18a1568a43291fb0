package io.logbench.verify.internal;

import io.logbench.verify.BackendChecker;
import io.logbench.verify.Verdict;
import io.logbench.verify.VerifyEvent;
import io.logbench.verify.VerifyTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Runs a backend's {@link BackendChecker} inside a source reader that paces itself: when no window
 * is due it answers NOTHING_AVAILABLE with a future a timer completes at the next wake-up, so the
 * task thread never sleeps; it ends its input when every window has a final verdict. Gauges
 * {@code missingLines}, {@code duplicateLines}, {@code replayedLines} and {@code pendingWindows},
 * also in group {@code
 * backend=<name>}, where gauge {@code windows} in group {@code status=<verdict>} counts the windows
 * whose latest verdict is that one.
 */
public final class CheckReader implements SourceReader<VerifyEvent, CheckSplit> {

  private final VerifyTarget target;
  private final SourceReaderContext context;
  private ScheduledExecutorService timer;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private CheckSplit split;
  private BackendChecker checker;
  private boolean noMoreSplits;
  private boolean finished;
  private volatile long missing;
  private volatile long duplicates;
  private volatile long replayed;
  private volatile long pending = -1;
  /** Each window's latest verdict, and how many windows have each (read by the metric reporter). */
  private final java.util.Map<Long, Verdict.Status> latest = new java.util.HashMap<>();
  private final java.util.concurrent.atomic.AtomicLongArray byStatus =
      new java.util.concurrent.atomic.AtomicLongArray(Verdict.Status.values().length);

  public CheckReader(VerifyTarget target, SourceReaderContext context) {
    this.target = target;
    this.context = context;
  }

  @Override
  public void start() {
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "logbench-verify-timer-" + target.name());
      t.setDaemon(true);
      return t;
    });
    context.metricGroup().gauge("missingLines", (Gauge<Long>) () -> missing);
    context.metricGroup().gauge("duplicateLines", (Gauge<Long>) () -> duplicates);
    context.metricGroup().gauge("replayedLines", (Gauge<Long>) () -> replayed);
    context.metricGroup().gauge("pendingWindows", (Gauge<Long>) () -> pending < 0 ? target.windows() : pending);
    MetricGroup backend = context.metricGroup().addGroup("backend", target.name());
    backend.gauge("missingLines", (Gauge<Long>) () -> missing);
    backend.gauge("duplicateLines", (Gauge<Long>) () -> duplicates);
    backend.gauge("replayedLines", (Gauge<Long>) () -> replayed);
    backend.gauge("pendingWindows", (Gauge<Long>) () -> pending < 0 ? target.windows() : pending);
    for (Verdict.Status s : Verdict.Status.values()) {
      backend.addGroup("status", s.name()).gauge("windows", (Gauge<Long>) () -> byStatus.get(s.ordinal()));
    }
  }

  private void count(Verdict v) {
    Verdict.Status before = latest.put(v.windowStartMillis(), v.status());
    if (before != null) {
      byStatus.decrementAndGet(before.ordinal());
    }
    byStatus.incrementAndGet(v.status().ordinal());
  }

  @Override
  public InputStatus pollNext(ReaderOutput<VerifyEvent> output) {
    if (finished) {
      return InputStatus.END_OF_INPUT;
    }
    if (checker == null) {
      if (noMoreSplits) {
        return InputStatus.END_OF_INPUT;
      }
      available = new CompletableFuture<>();
      return InputStatus.NOTHING_AVAILABLE;
    }
    long now = System.currentTimeMillis();
    long wake = checker.nextWakeMillis(now);
    if (wake > now && !checker.done()) {
      CompletableFuture<Void> f = new CompletableFuture<>();
      available = f;
      timer.schedule(() -> f.complete(null), wake - now, TimeUnit.MILLISECONDS);
      return InputStatus.NOTHING_AVAILABLE;
    }
    for (BackendChecker.Result r : checker.step(now)) {
      count(r.verdict());
      output.collect(new VerifyEvent(target.name(), r, checker.stats(), false));
    }
    missing = checker.missingLines();
    duplicates = checker.duplicateLines();
    replayed = checker.replayedLines();
    pending = checker.pendingWindows();
    if (checker.done()) {
      output.collect(new VerifyEvent(target.name(), null, checker.stats(), true));
      finished = true;
      return InputStatus.END_OF_INPUT;
    }
    return InputStatus.MORE_AVAILABLE;
  }

  @Override
  public List<CheckSplit> snapshotState(long checkpointId) {
    List<CheckSplit> out = new ArrayList<>();
    if (split != null && !finished) {
      out.add(split);
    }
    return out;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<CheckSplit> splits) {
    if (!splits.isEmpty() && checker == null) {
      split = splits.get(0);
      // after a failover every window is checked again; the client keeps each window's last verdict
      checker = target.openChecker();
    }
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
    if (checker != null) {
      checker.close();
    }
  }
}
