package io.logbench.delivery.internal;

import java.util.PriorityQueue;

/** A {@link DeliveryTimer} in virtual time: tasks run when the test advances the clock. */
final class ManualTimer implements DeliveryTimer {

  private record Task(long at, long order, Runnable run, boolean[] cancelled) {}

  private final PriorityQueue<Task> queue =
      new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
  private long now;
  private long order;
  /** Whether {@link #executeLater} holds answers that are not urgent until {@link #releaseAnswers}. */
  private boolean holdAnswers;
  private final java.util.List<Runnable> held = new java.util.ArrayList<>();

  ManualTimer(long startNanos) {
    this.now = startNanos;
  }

  long now() {
    return now;
  }

  @Override
  public void execute(Runnable task) {
    queue.add(new Task(now, order++, task, new boolean[1]));
  }

  /**
   * Held answers wait (as for a task thread asleep until its next batch) when {@link
   * #holdAnswers}; an urgent one, and every answer otherwise, is queued at once.
   */
  @Override
  public void executeLater(Runnable task, java.util.function.BooleanSupplier urgent) {
    if (holdAnswers && !urgent.getAsBoolean()) {
      held.add(task);
    } else {
      execute(task);
    }
  }

  void holdAnswers(boolean hold) {
    holdAnswers = hold;
  }

  /** Queues the held answers, oldest first; returns how many there were. */
  int releaseAnswers() {
    int n = held.size();
    held.forEach(this::execute);
    held.clear();
    return n;
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    boolean[] cancelled = new boolean[1];
    queue.add(new Task(now + Math.max(0, delayNanos), order++, task, cancelled));
    return () -> cancelled[0] = true;
  }

  /** Runs every task due by now + {@code nanos}, moving the clock to each as it runs. */
  void advance(long nanos) {
    long until = now + nanos;
    while (!queue.isEmpty() && queue.peek().at <= until) {
      Task t = queue.poll();
      now = Math.max(now, t.at);
      if (!t.cancelled[0]) {
        t.run.run();
      }
    }
    now = until;
  }

  /** Runs what is due now. */
  void runDue() {
    advance(0);
  }

  /** Runs tasks in time order until none is left or {@code maxNanos} of virtual time passed. */
  void runAll(long maxNanos) {
    advance(maxNanos);
  }

  int pending() {
    return (int) queue.stream().filter(t -> !t.cancelled[0]).count();
  }
}
