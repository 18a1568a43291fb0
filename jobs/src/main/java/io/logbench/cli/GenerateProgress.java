package io.logbench.cli;

import io.logbench.job.BackendSummary;
import io.logbench.schedule.Schedule;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * generate's progress lines, one per backend: lines sent (answered) of the run's, the rate over
 * the last 10 s against the schedule's target rate now, p95 latency from schedule, lines failed by
 * reason, how far behind schedule the answered lines are, and the time left.
 *
 * <p>Schedule lag: the next line to be answered was due at {@code dueNanos(sent)}; when that is
 * in the past the backend (or the source) is that far behind. ETA: the schedule's remaining
 * duration plus the lag, or when behind the lines left at the current rate if that is longer;
 * unpaced, the lines left at the current rate.
 */
final class GenerateProgress implements Supplier<List<String>> {

  /** The rate is measured over this span of the last samples. */
  static final long RATE_SPAN_MILLIS = 10_000;

  private final String command;
  private final Schedule schedule;
  private final long lines;
  private final long runStartMillis;
  private final Supplier<List<BackendSummary>> summaries;
  private final LongSupplier clockMillis;
  private final Map<String, Deque<long[]>> samples = new HashMap<>();

  GenerateProgress(String command, Schedule schedule, long lines, long runStartMillis,
      Supplier<List<BackendSummary>> summaries, LongSupplier clockMillis) {
    this.command = command;
    this.schedule = schedule;
    this.lines = lines;
    this.runStartMillis = runStartMillis;
    this.summaries = summaries;
    this.clockMillis = clockMillis;
  }

  @Override
  public synchronized List<String> get() {
    long now = clockMillis.getAsLong();
    long elapsed = now - runStartMillis;
    List<BackendSummary> all = summaries.get();
    if (elapsed < 0 || all.isEmpty()) {
      return List.of(command + ": " + (elapsed < 0 ? "the run starts in " + Progress.duration(-elapsed)
          : "starting the job") + " (" + Format.count(lines) + " lines per backend)");
    }
    List<String> out = new ArrayList<>();
    int width = all.stream().mapToInt(s -> s.backend().length()).max().orElse(8);
    for (BackendSummary s : all) {
      out.add(line(s.backend(), s.progress(), now, elapsed, width));
    }
    return out;
  }

  private String line(String backend, BackendSummary.Progress p, long now, long elapsed, int width) {
    Deque<long[]> q = samples.computeIfAbsent(backend, b -> new ArrayDeque<>());
    q.addLast(new long[] {now, p.lines()});
    while (q.size() > 2 && now - q.peekFirst()[0] > RATE_SPAN_MILLIS) {
      q.removeFirst();
    }
    long[] first = q.peekFirst();
    double rate = now > first[0] ? (p.lines() - first[1]) * 1000.0 / (now - first[0])
        : elapsed > 0 ? p.lines() * 1000.0 / elapsed : 0;
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%s: %-" + width + "s %s/%s lines %3d%%", command, backend,
        Format.count(p.lines()), Format.count(lines), lines == 0 ? 100 : (int) (100 * p.lines() / lines)));
    boolean done = p.lines() >= lines;
    long lagMillis = 0;
    if (schedule.paced()) {
      double target = schedule.targetRate(elapsed * 1_000_000L);
      b.append(String.format(Locale.ROOT, "  %s/s (target %s/s)", Format.rate(rate), Format.rate(target)));
      if (!done) {
        lagMillis = Math.max(0, elapsed - schedule.dueNanos(p.lines()) / 1_000_000L);
      }
    } else {
      b.append(String.format(Locale.ROOT, "  %s/s (unpaced)", Format.rate(rate)));
    }
    b.append(String.format(Locale.ROOT, "  p95 %.1f ms", p.p95Micros() / 1000.0));
    b.append("  failed ").append(Format.count(p.failedLines()));
    if (!p.failed().isEmpty()) {
      StringBuilder f = new StringBuilder();
      p.failed().forEach((r, n) ->
          f.append(f.length() == 0 ? "" : ", ").append(r).append(' ').append(Format.count(n)));
      b.append(" (").append(f).append(')');
    }
    if (schedule.paced()) {
      b.append("  lag ").append(Progress.duration(lagMillis));
    }
    b.append("  ETA ").append(done ? "done" : eta(p.lines(), rate, elapsed, lagMillis));
    return b.toString();
  }

  private String eta(long sent, double rate, long elapsed, long lagMillis) {
    long atRate = rate > 0 ? (long) ((lines - sent) * 1000 / rate) : -1;
    if (schedule.paced()) {
      long onSchedule = Math.max(0, schedule.durationNanos() / 1_000_000L - elapsed) + lagMillis;
      // behind schedule, the backend's own pace says more than the schedule's
      return Progress.duration(lagMillis > 0 ? Math.max(onSchedule, atRate) : onSchedule);
    }
    return atRate >= 0 ? Progress.duration(atRate) : "?";
  }
}
