package io.logbench.cli;

import io.logbench.job.BackendSummary;
import io.logbench.metrics.LiveMetrics;
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
 * generate's progress lines, one per backend: lines sent of the run's, the rate over the last 10 s
 * against the schedule's target rate now, p95 latency from schedule, lines failed by reason, how
 * far behind schedule the source is, and the time left.
 *
 * <p>In-process the figures are the job's own metrics as they are now ({@link #fromMetrics}): the
 * sources' positions and schedule lag, the deliveries' failures and latency. On a cluster they
 * come from the outcomes the client has collected ({@link Figures#of(BackendSummary)}), which
 * Flink's collect sink hands out after each checkpoint: the lag then is how far behind schedule
 * the answered lines are, {@code dueNanos(answered)} against now.
 *
 * <p>ETA: the schedule's remaining duration plus the lag, or when behind the lines left at the
 * current rate if that is longer; unpaced, the lines left at the current rate.
 */
final class GenerateProgress implements Supplier<List<String>> {

  /** The rate is measured over this span of the last samples. */
  static final long RATE_SPAN_MILLIS = 10_000;

  /**
   * One backend's figures now.
   *
   * @param lines lines sent (in-process: by the sources' positions) or answered (from outcomes)
   * @param lagMillis how far behind schedule the source is, or -1 to reckon it from {@code lines}
   * @param done whether every line is sent and answered
   */
  record Figures(String backend, long lines, Map<String, Long> failed, long p95Micros, long lagMillis,
      boolean done) {

    /** From the outcomes collected so far. */
    static Figures of(BackendSummary s, long runLines) {
      BackendSummary.Progress p = s.progress();
      return new Figures(s.backend(), p.lines(), p.failed(), p.p95Micros(), -1, p.lines() >= runLines);
    }

    long failedLines() {
      return failed.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * The figures of {@code backends} from the in-process job's metrics ({@link LiveMetrics}), none
   * until the job's first source task runs.
   */
  static Supplier<List<Figures>> fromMetrics(Supplier<LiveMetrics> metrics, List<String> backends, long runLines) {
    return () -> {
      LiveMetrics m = metrics.get();
      List<Figures> out = new ArrayList<>();
      if (m == null) {
        return out;
      }
      for (String b : backends) {
        LiveMetrics.Backend f = m.backend(b);
        if (f.liveSources() == 0 && f.linesDone() == 0) {
          return List.of(); // not deployed yet
        }
        out.add(new Figures(b, f.linesDone(), f.failed(), f.latency().count() == 0 ? 0 : f.latency().percentile(95),
            f.lagMillis(), f.linesDone() >= runLines && f.inFlight() == 0));
      }
      return out;
    };
  }

  /** The figures of {@code summaries} (the outcomes collected so far). */
  static Supplier<List<Figures>> fromOutcomes(Supplier<List<BackendSummary>> summaries, long runLines) {
    return () -> summaries.get().stream().map(s -> Figures.of(s, runLines)).toList();
  }

  private final String command;
  private final Schedule schedule;
  private final long lines;
  private final long runStartMillis;
  private final Supplier<List<Figures>> figures;
  private final LongSupplier clockMillis;
  private final Map<String, Deque<long[]>> samples = new HashMap<>();

  GenerateProgress(String command, Schedule schedule, long lines, long runStartMillis,
      Supplier<List<Figures>> figures, LongSupplier clockMillis) {
    this.command = command;
    this.schedule = schedule;
    this.lines = lines;
    this.runStartMillis = runStartMillis;
    this.figures = figures;
    this.clockMillis = clockMillis;
  }

  @Override
  public synchronized List<String> get() {
    long now = clockMillis.getAsLong();
    long elapsed = now - runStartMillis;
    List<Figures> all = figures.get();
    if (elapsed < 0 || all.isEmpty()) {
      return List.of(command + ": " + (elapsed < 0 ? "the run starts in " + Progress.duration(-elapsed)
          : "starting the job") + " (" + Format.count(lines) + " lines per backend)");
    }
    List<String> out = new ArrayList<>();
    int width = all.stream().mapToInt(f -> f.backend().length()).max().orElse(8);
    for (Figures f : all) {
      out.add(line(f, now, elapsed, width));
    }
    return out;
  }

  private String line(Figures p, long now, long elapsed, int width) {
    String backend = p.backend();
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
    boolean done = p.done();
    long lagMillis = 0;
    if (schedule.paced()) {
      double target = schedule.targetRate(elapsed * 1_000_000L);
      b.append(String.format(Locale.ROOT, "  %s/s (target %s/s)", Format.rate(rate), Format.rate(target)));
      if (p.lagMillis() >= 0) {
        lagMillis = p.lagMillis();
      } else if (!done) {
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
