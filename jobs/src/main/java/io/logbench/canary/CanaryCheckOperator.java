package io.logbench.canary;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.replay.Replays;
import io.logbench.verify.ReplayView;
import io.logbench.verify.Verdict.Status;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs one backend's {@link CanaryChecker} after its ledger (parallelism 1, in the backend's own
 * failover region): the task thread takes the ledger's rows, plans each round on a processing-time
 * timer and writes the results ({@link CanaryFiles}); one thread of its own per backend does the
 * round's counts and id reads, whose results come back through the task's mailbox, so no state is
 * touched off the task thread and a slow backend never blocks the ledger or a checkpoint. One
 * round at a time: the next is planned when the last one's results are in.
 *
 * <p>The checker's state and the files' position are checkpointed; a round in flight at a
 * checkpoint is simply planned again after a restore.
 *
 * <p>Metrics, in group {@code backend=<name>} (every count since the run started, restored with
 * the state, so they go on across restarts): gauges {@code canaryWindows} in group {@code
 * status=<verdict>} (final windows, LOST counting spot checks), {@code canaryExpectedLines},
 * {@code canaryAckedLines}, {@code canaryObservedLines}, {@code canaryMissingLines}, {@code
 * canaryDuplicateLines}, {@code canaryReplayedLines}, {@code canaryLostLines} (lines lost after
 * they were stored, from spot checks), {@code canarySpotChecks}, {@code canarySpotLostWindows},
 * {@code canaryNewestSettledWindowSeconds} (end of the newest window with a final verdict, epoch
 * seconds; 0 before the first), {@code canaryOpenWindows}, {@code canaryStoredWindows}, {@code
 * canaryCountErrors}, {@code canaryLateRows} and {@code canaryGapWindows}; and {@code
 * canaryStartedSeconds}, when this operator opened (epoch seconds, set again at each start or
 * restore, not restored), so an alert can tell a canary that has not settled a window since it
 * started from one that never will.
 */
public final class CanaryCheckOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<LedgerEntry, Void> {

  private static final long serialVersionUID = 1L;

  private final CanaryTarget target;
  private final transient MailboxExecutor mailbox;

  private transient CanaryChecker checker;
  private transient CanaryFiles files;
  private transient WindowCounter counter;
  private transient ExecutorService io;
  private transient ReplayView replays;
  private transient ListState<byte[]> checkerState;
  private transient ListState<String> filesState;
  private transient boolean inFlight;
  private transient long timerAt;
  private transient volatile Snapshot metrics;
  private transient long startedMillis;

  CanaryCheckOperator(StreamOperatorParameters<Void> parameters, CanaryTarget target) {
    super(parameters);
    this.target = target;
    this.mailbox = parameters.getMailboxExecutor();
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    checkerState = context.getOperatorStateStore().getListState(
        new ListStateDescriptor<>("canary-checks", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    filesState = context.getOperatorStateStore().getListState(
        new ListStateDescriptor<>("canary-files", TypeInformation.of(String.class)));
    long now = System.currentTimeMillis();
    CanaryFiles.Position position = null;
    if (context.isRestored()) {
      for (byte[] state : checkerState.get()) {
        checker = CanaryChecker.restore(state, target.name(), target.settings(), target.grid(), now);
      }
      List<String> p = new java.util.ArrayList<>();
      filesState.get().forEach(p::add);
      if (p.size() == 3) {
        position = new CanaryFiles.Position(p.get(0).isEmpty() ? null : p.get(0), Long.parseLong(p.get(1)),
            Long.parseLong(p.get(2)));
      }
    }
    if (checker == null) {
      checker = new CanaryChecker(target.name(), target.settings(), target.grid(), target.firstWindowStart(), now);
    }
    files = new CanaryFiles(Path.of(target.runDir()), target.name(), ZoneId.of(target.zone()),
        target.settings().retention().toDays(), position);
    publish();
  }

  @Override
  public void open() throws Exception {
    super.open();
    counter = target.openCounter();
    replays = ReplayView.files(Path.of(target.runDir()));
    String thread = "logbench-canary-" + target.name();
    io = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, thread);
      t.setDaemon(true);
      return t;
    });
    startedMillis = System.currentTimeMillis();
    registerMetrics(getMetricGroup().addGroup("backend", target.name()));
    schedule(System.currentTimeMillis());
  }

  @Override
  public void processElement(StreamRecord<LedgerEntry> element) {
    checker.offer(element.getValue());
  }

  /** Asks for a wake-up at the checker's next due time, unless an earlier one is pending. */
  private void schedule(long now) {
    long at = checker.nextWake(now);
    if (timerAt != 0 && timerAt <= at) {
      return;
    }
    timerAt = at;
    getProcessingTimeService().registerTimer(at, t -> wake(t));
  }

  private void wake(long timestamp) {
    if (timestamp != timerAt) {
      return; // replaced by an earlier wake-up that already ran
    }
    timerAt = 0;
    if (inFlight) {
      return;
    }
    long now = System.currentTimeMillis();
    CanaryChecker.Round round = checker.plan(now);
    if (round == null) {
      schedule(now);
      return;
    }
    inFlight = true;
    io.execute(() -> {
      Replays r;
      try {
        r = replays.read(target.spec().deliveredAs()); // a pipeline's count block: its write's records
      } catch (java.io.IOException | RuntimeException e) {
        // without the records every extra copy stays DUPLICATE: nothing is hidden
        r = Replays.none();
      }
      CanaryChecker.RoundResult result = round.run(counter, r);
      mailbox.execute(() -> apply(result), "logbench canary round");
    });
  }

  private void apply(CanaryChecker.RoundResult result) throws Exception {
    inFlight = false;
    ZoneId zone = ZoneId.of(target.zone());
    for (CanaryRecord record : checker.apply(result)) {
      String ledgerLine = record.row() == null ? null : LedgerFiles.jsonRow(record.row(), zone);
      files.append(record.json(zone), ledgerLine, record.decidedMillis());
    }
    publish();
    schedule(System.currentTimeMillis());
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    checkerState.update(List.of(checker.snapshot()));
    CanaryFiles.Position p = files.position();
    filesState.update(List.of(p.day() == null ? "" : p.day(), Long.toString(p.verdictsLength()),
        Long.toString(p.ledgerLength())));
  }

  /** The figures the metrics read, copied on the task thread after each change. */
  private record Snapshot(long[] windows, long[] lines, long spotChecks, long spotLost, long newestEnd, int open,
      int stored, long errors, long late, long gaps) {}

  private void publish() {
    long[] windows = new long[Status.values().length];
    for (Status s : Status.values()) {
      windows[s.ordinal()] = s == Status.LOST ? checker.spotLost() : checker.windows(s);
    }
    long[] lines = new long[CanaryChecker.Lines.values().length];
    for (CanaryChecker.Lines l : CanaryChecker.Lines.values()) {
      lines[l.ordinal()] = checker.lines(l);
    }
    metrics = new Snapshot(windows, lines, checker.spotChecks(), checker.spotLost(), checker.newestSettledEnd(),
        checker.openWindows(), checker.storedWindows(), checker.countErrors(), checker.lateRows(),
        checker.gapWindows());
  }

  private void registerMetrics(MetricGroup group) {
    for (Status s : Status.values()) {
      group.addGroup("status", s.name()).gauge("canaryWindows", (Gauge<Long>) () -> metrics.windows()[s.ordinal()]);
    }
    for (CanaryChecker.Lines l : CanaryChecker.Lines.values()) {
      String name = "canary" + l.name().charAt(0) + l.name().substring(1).toLowerCase(java.util.Locale.ROOT) + "Lines";
      group.gauge(name, (Gauge<Long>) () -> metrics.lines()[l.ordinal()]);
    }
    group.gauge("canarySpotChecks", (Gauge<Long>) () -> metrics.spotChecks());
    group.gauge("canarySpotLostWindows", (Gauge<Long>) () -> metrics.spotLost());
    group.gauge("canaryNewestSettledWindowSeconds", (Gauge<Long>) () -> metrics.newestEnd() / 1000);
    group.gauge("canaryOpenWindows", (Gauge<Integer>) () -> metrics.open());
    group.gauge("canaryStoredWindows", (Gauge<Integer>) () -> metrics.stored());
    group.gauge("canaryCountErrors", (Gauge<Long>) () -> metrics.errors());
    group.gauge("canaryLateRows", (Gauge<Long>) () -> metrics.late());
    group.gauge("canaryGapWindows", (Gauge<Long>) () -> metrics.gaps());
    group.gauge("canaryStartedSeconds", (Gauge<Long>) () -> startedMillis / 1000);
  }

  @Override
  public void close() throws Exception {
    try {
      if (io != null) {
        io.shutdownNow();
        io.awaitTermination(10, TimeUnit.SECONDS);
      }
      if (counter != null) {
        counter.close();
      }
      if (files != null) {
        files.close();
      }
    } finally {
      super.close();
    }
  }
}
