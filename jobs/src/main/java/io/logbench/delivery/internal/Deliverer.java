package io.logbench.delivery.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.schedule.Schedule;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.SendResult.Rejection;
import io.logbench.sink.SendResult;
import io.logbench.sink.ThresholdBreach;
import io.logbench.sink.WindowGrid;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers batches to one backend under a delivery mode and reports one {@link BatchOutcome} per
 * batch: the logic of {@code DeliveryFunction} without Flink, so it is tested with fakes and
 * virtual time.
 *
 * <p>Everything here runs on the {@link DeliveryTimer}'s thread: {@link #deliver} hands the batch
 * over, and every sender answer hops back onto it before it touches any state. An answer is
 * stamped where it comes in, so its service time and its latency from the scheduled time do not
 * count how long it waited for that thread ({@link DeliveryTimer#executeLater}).
 */
public final class Deliverer {

  private static final Logger LOG = LoggerFactory.getLogger(Deliverer.class);

  private final String backend;
  private final int subtask;
  private final DeliverySettings settings;
  private final BatchSender sender;
  private final WindowGrid grid;
  private final DeliveryTimer timer;
  private final LongSupplier clock;
  private final RandomGenerator random;
  private final DeliveryStats stats;
  private final Schedule schedule;
  private final long firstIndex;
  /** How long a send's answer may take before it counts as a timeout (see {@link Builder#answerTimeout}). */
  private final Duration answerTimeout;
  /** Epoch nanoseconds the run started, learned from the first batch; 0 until then. */
  private long runStartNanos;
  /**
   * The answer deadlines of the sends under way, in sending order, which is deadline order: every
   * send waits the same {@link #answerTimeout}. One timer task at a time waits for the oldest
   * deadline, instead of one per send that its answer cancels: scheduling and cancelling a task
   * per request woke the timer's thread once per request whenever the queue ran empty between
   * requests (about 45 µs of CPU a request at 1,000 requests a second). Answered entries leave
   * from the front as answers come, or when the timer task finds them.
   */
  private final ArrayDeque<AnswerDeadline> deadlines = new ArrayDeque<>();
  /** Whether a timer task waits for the oldest deadline (it is never cancelled). */
  private boolean deadlineTimerSet;
  /**
   * Batches handed to {@link #deliver} whose outcome is not reported yet; read by the I/O thread
   * an answer comes in on, to tell whether the caller may be waiting for room.
   */
  private final AtomicInteger unfinished = new AtomicInteger();
  /**
   * Whether an answer must reach the delivery thread at once: when the batches not yet reported
   * fill {@code in_flight}, Flink's async operator waits in its mailbox for one of them before it
   * takes the next batch.
   */
  private final BooleanSupplier answerUrgent;

  private Deliverer(Builder b) {
    this.backend = b.backend;
    this.subtask = b.subtask;
    this.settings = b.settings;
    this.sender = b.sender;
    this.grid = b.grid;
    this.timer = b.timer;
    this.clock = b.clock;
    this.random = b.random;
    this.stats = b.stats;
    this.schedule = b.schedule;
    this.firstIndex = b.firstIndex;
    this.answerTimeout = b.answerTimeout != null ? b.answerTimeout : b.settings.timeout();
    int capacity = b.settings.inFlight();
    this.answerUrgent = () -> unfinished.get() >= capacity;
  }

  public static Builder builder() {
    return new Builder();
  }

  public DeliveryStats stats() {
    return stats;
  }

  /**
   * Delivers {@code batch} (which nobody changes afterwards) and calls {@code done} once with its
   * outcome, or {@code failed} if the sender broke its contract (a bug: the job should fail).
   */
  public void deliver(LineBatch batch, Consumer<BatchOutcome> done, Consumer<Throwable> failed) {
    // counted before the timer runs the answers queued so far (see MailboxTimer#executeLater)
    unfinished.incrementAndGet();
    timer.execute(() -> start(batch, o -> {
      unfinished.decrementAndGet();
      done.accept(o);
    }, e -> {
      unfinished.decrementAndGet();
      failed.accept(e);
    }));
  }

  private void start(LineBatch batch, Consumer<BatchOutcome> done, Consumer<Throwable> failed) {
    long now = clock.getAsLong();
    if (runStartNanos == 0) {
      long scheduled = batch.scheduledNanos() != 0 ? batch.scheduledNanos() : now;
      long due = schedule == null ? 0 : schedule.dueNanos(Math.max(0, batch.firstSeq() - firstIndex));
      runStartNanos = scheduled - due;
    }
    Delivery d = new Delivery(batch, now, done, failed);
    if (stats.breach() != null) {
      d.abort();
      return;
    }
    d.send(batch, null);
  }

  /** Counts {@code d} among the sends waiting for an answer, and times it out at its deadline. */
  private void awaitAnswer(AnswerDeadline d) {
    deadlines.addLast(d);
    if (!deadlineTimerSet) {
      deadlineTimerSet = true;
      timer.schedule(this::expireDeadlines, Math.max(0, d.deadlineNanos - clock.getAsLong()));
    }
  }

  /**
   * The timer task: drops the answered, times out every send whose deadline has passed, and waits
   * again for the oldest one left, if any.
   */
  private void expireDeadlines() {
    // deadlineTimerSet stays true while this runs, so a retry sent from a timed-out answer only
    // queues its deadline: the task is scheduled again once, below
    long now = clock.getAsLong();
    while (!deadlines.isEmpty()) {
      AnswerDeadline d = deadlines.peekFirst();
      if (d.answered || d.delivery.finished) {
        deadlines.pollFirst();
      } else if (d.deadlineNanos <= now) {
        deadlines.pollFirst();
        d.delivery.answer(d, d.part, d.map, SendResult.retryable(d.part.count(), 0,
            "timeout: no answer within " + answerTimeout.toMillis() + " ms"), now);
        d.answered();
      } else {
        timer.schedule(this::expireDeadlines, d.deadlineNanos - now);
        return;
      }
    }
    deadlineTimerSet = false;
  }

  /**
   * One send waiting for its answer: when it times out, and what to time out. Once answered it
   * lets go of its batch, so answered entries queued behind a slow one hold no lines.
   */
  private static final class AnswerDeadline {
    final long deadlineNanos;
    Delivery delivery;
    LineBatch part;
    int[] map;
    /** The send was answered or timed out: later answers are ignored. */
    boolean answered;

    AnswerDeadline(long deadlineNanos, Delivery delivery, LineBatch part, int[] map) {
      this.deadlineNanos = deadlineNanos;
      this.delivery = delivery;
      this.part = part;
      this.map = map;
    }

    void answered() {
      answered = true;
      delivery = null;
      part = null;
      map = null;
    }
  }

  /** Drops the answered deadlines at the front, as answers come. */
  private void dropAnswered() {
    while (!deadlines.isEmpty() && deadlines.peekFirst().answered) {
      deadlines.pollFirst();
    }
  }

  /** One batch on its way: which lines are settled, how, and the request under way. */
  private final class Delivery {
    private final LineBatch batch;
    private final long arrivedNanos;
    private final Consumer<BatchOutcome> done;
    private final Consumer<Throwable> failed;
    /** Per line: null while pending or when acked (see {@link #acked}), else why it failed. */
    private final String[] reasons;
    private final BitSet acked;
    private int settled;
    private int attempts;
    private int retryRound;
    private int lastStatus;
    private long lastSendNanos;
    private long lastServiceNanos;
    /** When the last answer came in (or its send timed out), epoch ns. */
    private long lastAnswerNanos;
    private boolean finished;
    /** Requests and lines resent, by cause; usually empty. */
    private final Map<String, int[]> resent = new TreeMap<>();

    Delivery(LineBatch batch, long arrivedNanos, Consumer<BatchOutcome> done, Consumer<Throwable> failed) {
      this.batch = batch;
      this.arrivedNanos = arrivedNanos;
      this.done = done;
      this.failed = failed;
      this.reasons = new String[batch.count()];
      this.acked = new BitSet(batch.count());
    }

    /** Sends {@code part}; {@code map} gives each of its lines' index in the batch (null: same). */
    void send(LineBatch part, int[] map) {
      ++attempts;
      lastSendNanos = clock.getAsLong();
      stats.linesSent.inc(part.count());
      stats.addInFlight(1);
      AnswerDeadline timeout = new AnswerDeadline(lastSendNanos + answerTimeout.toNanos(), this, part, map);
      awaitAnswer(timeout);
      CompletableFuture<SendResult> f;
      try {
        f = sender.send(part);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      // stamped where the answer comes in (the I/O thread), then handed to the delivery thread,
      // which may take it at its next wake-up: no stage runs on an implicit executor
      f.whenComplete((r, e) -> {
        long answeredNanos = clock.getAsLong();
        timer.executeLater(() -> answered(timeout, part, map, r, e, answeredNanos), answerUrgent);
      });
    }

    private void answered(AnswerDeadline timeout, LineBatch part, int[] map, SendResult r, Throwable e,
        long answeredNanos) {
      if (e != null || r == null) {
        if (!timeout.answered && !finished) {
          timeout.answered();
          dropAnswered();
          stats.addInFlight(-1);
          finished = true;
          failed.accept(new IllegalStateException("The sender of backend " + backend
              + " failed instead of classifying its answer; this is a bug.", e));
        }
        return;
      }
      answer(timeout, part, map, r, answeredNanos);
    }

    /**
     * The answer to one send, or its timeout ({@code timeout} says which send), which came in at
     * {@code answeredNanos}.
     */
    void answer(AnswerDeadline timeout, LineBatch part, int[] map, SendResult r, long answeredNanos) {
      if (timeout.answered || finished) {
        return; // a late answer after a timeout, or a timeout after the answer
      }
      timeout.answered();
      dropAnswered();
      stats.addInFlight(-1);
      lastAnswerNanos = answeredNanos;
      lastServiceNanos = answeredNanos - lastSendNanos;
      lastStatus = r.status();
      stats.recordService(lastServiceNanos);
      stats.requests.inc();
      if (r.kind() != SendResult.Kind.ACCEPTED) {
        stats.failedRequests.inc();
      }
      BitSet retry = settle(part, map, r);
      if (settings.mode() == Mode.LOAD_TEST) {
        String reason = retryReason(r);
        for (int k = retry.nextSetBit(0); k >= 0; k = retry.nextSetBit(k + 1)) {
          fail(index(map, k), reason);
        }
        judge();
      } else if (!retry.isEmpty()) {
        resendLater(retry, resendCause(r));
        return;
      }
      finish();
    }

    /** Marks acked and rejected lines of {@code part}; returns the batch lines left to retry. */
    private BitSet settle(LineBatch part, int[] map, SendResult r) {
      int n = part.count();
      BitSet retry = new BitSet(n);
      if (r.kind() == SendResult.Kind.RETRYABLE) {
        retry.set(0, n);
      } else if (r.kind() == SendResult.Kind.PARTIAL) {
        retry.or(r.retry());
        retry.clear(n, Math.max(n, retry.length()));
      }
      if (r.kind() == SendResult.Kind.ACCEPTED) {
        for (int k = 0; k < n; k++) {
          ack(index(map, k));
        }
        return new BitSet();
      }
      BitSet classified = (BitSet) retry.clone();
      List<Rejection> byCount = new ArrayList<>();
      for (Rejection rej : r.rejections()) {
        if (rej.lines() == null) {
          byCount.add(rej);
          continue;
        }
        for (int k = rej.lines().nextSetBit(0); k >= 0 && k < n; k = rej.lines().nextSetBit(k + 1)) {
          if (!classified.get(k)) {
            classified.set(k);
            fail(index(map, k), rej.reason());
          }
        }
      }
      // Rejections without line numbers: the backend said how many, not which; the lines it
      // accepted are then told apart only by count, which is all the ledger needs.
      int k = classified.nextClearBit(0);
      for (Rejection rej : byCount) {
        for (int c = 0; c < rej.count() && k < n; c++) {
          classified.set(k);
          fail(index(map, k), rej.reason());
          k = classified.nextClearBit(k + 1);
        }
      }
      int accepted = r.accepted();
      String leftover = r.kind() == SendResult.Kind.FATAL
          ? (r.rejections().isEmpty() ? statusKey(r) : r.rejections().get(0).reason())
          : "unconfirmed";
      for (k = classified.nextClearBit(0); k < n; k = classified.nextClearBit(k + 1)) {
        classified.set(k);
        if (accepted > 0) {
          accepted--;
          ack(index(map, k));
        } else {
          fail(index(map, k), leftover);
        }
      }
      BitSet pending = new BitSet(batch.count());
      for (k = retry.nextSetBit(0); k >= 0; k = retry.nextSetBit(k + 1)) {
        pending.set(index(map, k));
      }
      return pending;
    }

    private void resendLater(BitSet pending, String cause) {
      stats.linesRetried.inc(pending.cardinality());
      stats.requestsResentByCause().get(cause).inc();
      int[] r = resent.computeIfAbsent(cause, c -> new int[2]);
      r[0]++;
      r[1] += pending.cardinality();
      long cap = settings.retry().capNanos(retryRound++);
      long wait = cap <= 0 ? 0 : random.nextLong(cap + 1);
      timer.schedule(
          () -> {
            if (pending.cardinality() == batch.count()) {
              send(batch, null);
            } else {
              int[] map = pending.stream().toArray();
              send(batch.select(pending), map);
            }
          },
          wait);
    }

    void abort() {
      for (int k = 0; k < batch.count(); k++) {
        fail(k, BatchOutcome.ABORTED_REASON);
      }
      finished = true;
      done.accept(outcome(BatchOutcome.Status.ABORTED, 0, 0));
    }

    private void ack(int k) {
      if (!acked.get(k) && reasons[k] == null) {
        acked.set(k);
        settled++;
      }
    }

    private void fail(int k, String reason) {
      if (!acked.get(k) && reasons[k] == null) {
        reasons[k] = reason;
        settled++;
        stats.linesFailed(DeliveryStats.failureClass(reason)).inc();
      }
    }

    private void finish() {
      if (settled < batch.count()) {
        return;
      }
      finished = true;
      int ackedLines = acked.cardinality();
      stats.linesAcked.inc(ackedLines);
      long from = batch.scheduledNanos() != 0 ? batch.scheduledNanos() : arrivedNanos;
      long latency = lastAnswerNanos - from;
      stats.recordLatency(latency);
      BatchOutcome.Status status = ackedLines == batch.count() ? BatchOutcome.Status.ACKED
          : ackedLines > 0 ? BatchOutcome.Status.PARTIAL : BatchOutcome.Status.FAILED;
      done.accept(outcome(status, latency, lastServiceNanos));
    }

    private BatchOutcome outcome(BatchOutcome.Status status, long latency, long service) {
      List<BatchOutcome.WindowTally> windows = status == BatchOutcome.Status.ACKED ? oneWindowAcked() : null;
      if (windows == null) {
        windows = tallies();
      }
      List<BatchOutcome.Resend> resends;
      if (resent.isEmpty()) {
        resends = List.of();
      } else {
        resends = new ArrayList<>(resent.size());
        for (Map.Entry<String, int[]> r : resent.entrySet()) {
          resends.add(new BatchOutcome.Resend(r.getKey(), r.getValue()[0], r.getValue()[1]));
        }
      }
      return new BatchOutcome(backend, batch.batchId(), batch.firstSeq(), batch.count(), status,
          lastStatus, attempts, batch.scheduledNanos(), latency, service, windows, resends);
    }

    /**
     * The tally of a batch whose lines were all taken and all fall in one window (the common
     * case: a batch spans milliseconds, a window minutes), without a map; null otherwise.
     */
    private List<BatchOutcome.WindowTally> oneWindowAcked() {
      int n = batch.count();
      long from = grid.windowStart(batch.timestampMillis(0));
      long to = from + grid.sizeMillis();
      for (int k = 1; k < n; k++) {
        long t = batch.timestampMillis(k);
        if (t < from || t >= to) {
          return null;
        }
      }
      return List.of(new BatchOutcome.WindowTally(from, n, n, Map.of()));
    }

    /** Sent and taken lines, and the reasons of the others, by window (in window order). */
    private List<BatchOutcome.WindowTally> tallies() {
      TreeMap<Long, int[]> counts = new TreeMap<>();
      TreeMap<Long, Map<String, Integer>> rejected = new TreeMap<>();
      for (int k = 0; k < batch.count(); k++) {
        long w = grid.windowStart(batch.timestampMillis(k));
        int[] c = counts.computeIfAbsent(w, x -> new int[2]);
        c[0]++;
        if (acked.get(k)) {
          c[1]++;
        } else {
          rejected.computeIfAbsent(w, x -> new HashMap<>()).merge(reasons[k], 1, Integer::sum);
        }
      }
      List<BatchOutcome.WindowTally> windows = new ArrayList<>(counts.size());
      counts.forEach((w, c) -> windows.add(new BatchOutcome.WindowTally(
          w, c[0], c[1], Map.copyOf(rejected.getOrDefault(w, Map.of())))));
      return List.copyOf(windows);
    }
  }

  private static int index(int[] map, int k) {
    return map == null ? k : map[k];
  }

  /**
   * Why lines are resent: the class of the answer ({@code 429}, {@code 5xx}, {@code io}, {@code
   * timeout}, {@code 4xx}, {@code other}), or {@code partial} for the retryable items of an answer
   * that took the others.
   */
  static String resendCause(SendResult r) {
    if (r.kind() == SendResult.Kind.PARTIAL && r.status() >= 200 && r.status() < 300) {
      return "partial";
    }
    String c = DeliveryStats.failureClass(statusKey(r));
    return DeliveryStats.RESEND_CAUSES.contains(c) ? c : "other";
  }

  /** Why lines left to retry failed, in load-test mode. */
  static String retryReason(SendResult r) {
    if (r.kind() == SendResult.Kind.PARTIAL && r.status() >= 200 && r.status() < 300) {
      return "retryable item"; // e.g. a bulk item's 429 inside a 200 answer
    }
    return statusKey(r);
  }

  /**
   * {@code "ack timeout"} when the request was taken but its acknowledgement never came (whatever
   * the request's status), else {@code "503"}, or for no HTTP answer {@code "timeout"} or {@code
   * "io"}.
   */
  static String statusKey(SendResult r) {
    if (r.detail().startsWith(SendResult.ACK_TIMEOUT)) {
      return SendResult.ACK_TIMEOUT;
    }
    if (r.status() > 0) {
      return Integer.toString(r.status());
    }
    String d = r.detail().toLowerCase(Locale.ROOT);
    return d.contains("timeout") || d.contains("timed out") ? "timeout" : "io";
  }

  /** Judges the thresholds of a load test after a request, once the run is {@code delay} old. */
  private void judge() {
    if (stats.breach() != null) {
      return;
    }
    long now = clock.getAsLong();
    long offset = now - runStartNanos;
    DeliverySettings.Thresholds t = settings.thresholds();
    if (offset < t.delay().toNanos()) {
      return;
    }
    long requests = stats.requests.getCount();
    long failedRequests = stats.failedRequests.getCount();
    double rate = requests == 0 ? 0 : (double) failedRequests / requests;
    String threshold = null;
    String observed = null;
    if (rate > t.failedRate()) {
      threshold = "failed_rate > " + t.failedRate();
      observed = String.format(Locale.ROOT, "%.4f (%d of %d requests failed)", rate, failedRequests, requests);
    } else {
      long p95Micros = stats.serviceP95Micros();
      if (p95Micros * 1_000 > t.p95().toNanos()) {
        threshold = "p95 > " + t.p95().toMillis() + " ms";
        observed = String.format(Locale.ROOT, "p95 %.1f ms over %d requests", p95Micros / 1000.0, requests);
      }
    }
    if (threshold != null) {
      ThresholdBreach b = new ThresholdBreach(
          backend, subtask, now / 1_000_000, offset / 1_000_000, threshold, observed);
      stats.breach(b);
      LOG.warn("Load test aborted: {}.", b.describe());
    }
  }

  /** Builds a {@link Deliverer}; every part is required but the schedule. */
  public static final class Builder {
    private String backend;
    private int subtask;
    private DeliverySettings settings;
    private BatchSender sender;
    private WindowGrid grid;
    private DeliveryTimer timer;
    private LongSupplier clock;
    private RandomGenerator random;
    private DeliveryStats stats = new DeliveryStats();
    private Schedule schedule;
    private long firstIndex;
    private Duration answerTimeout;

    public Builder backend(String backend, int subtask) {
      this.backend = backend;
      this.subtask = subtask;
      return this;
    }

    public Builder settings(DeliverySettings settings) {
      this.settings = settings;
      return this;
    }

    public Builder sender(BatchSender sender) {
      this.sender = sender;
      return this;
    }

    public Builder grid(WindowGrid grid) {
      this.grid = grid;
      return this;
    }

    /** The delivery thread and its timers. */
    public Builder timer(DeliveryTimer timer) {
      this.timer = timer;
      return this;
    }

    /** Epoch nanoseconds, the same clock the source schedules by. */
    public Builder clock(LongSupplier clock) {
      this.clock = clock;
      return this;
    }

    /** The jitter of backoff waits. */
    public Builder random(RandomGenerator random) {
      this.random = random;
      return this;
    }

    public Builder stats(DeliveryStats stats) {
      this.stats = stats;
      return this;
    }

    /** The run's schedule, so a task knows the run's start from its first batch. */
    public Builder schedule(Schedule schedule, long firstIndex) {
      this.schedule = schedule;
      this.firstIndex = firstIndex;
      return this;
    }

    /**
     * How long the answer to one send may take (default: the settings' request timeout): the
     * spec's {@link io.logbench.sink.BackendSpec#answerTimeout}, longer than one request when the
     * sender also waits for an acknowledgement. A send without answer by then is resent (or, in
     * a load test, failed) as a {@code timeout}.
     */
    public Builder answerTimeout(Duration answerTimeout) {
      this.answerTimeout = answerTimeout;
      return this;
    }

    public Deliverer build() {
      require(backend != null, "A deliverer needs a backend name.");
      require(settings != null, "A deliverer needs delivery settings.");
      require(sender != null, "A deliverer needs a sender.");
      require(grid != null, "A deliverer needs a window grid.");
      require(timer != null, "A deliverer needs a timer.");
      require(clock != null, "A deliverer needs a clock.");
      require(random != null, "A deliverer needs a random generator for jitter.");
      require(stats != null, "A deliverer needs stats.");
      require(answerTimeout == null || (!answerTimeout.isNegative() && !answerTimeout.isZero()),
          "A deliverer's answer timeout must be positive, not " + answerTimeout + ".");
      return new Deliverer(this);
    }

    private static void require(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }
}
