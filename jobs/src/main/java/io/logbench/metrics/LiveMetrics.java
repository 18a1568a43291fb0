package io.logbench.metrics;

import io.logbench.sink.LatencyHistogram;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;

/**
 * The job's per-backend metrics as they are now, for the command line's progress lines: a Flink
 * {@link MetricReporter} of the in-process MiniCluster (so in the command's own JVM) that keeps a
 * reference to each metric of group {@code backend=<name>} that the progress reads, and sums them
 * per backend on demand ({@link #backend}), with no thread and no copy until asked. A metric whose
 * task ended keeps its last value (a finished source still counts its lines), until a new attempt
 * of the same subtask registers its own.
 *
 * <p>Read: from the sources, {@code linesDone} (summed) and {@code scheduleLagMillis} (the largest,
 * running tasks only); from the deliveries, {@code linesAcked} and {@code linesFailed_<cause>}
 * (summed), {@code inFlightRequests} (running tasks), and {@code latencyFromScheduleMicros}, whose
 * histograms are merged exactly ({@link HistogramMetric#snapshot}).
 *
 * <p>The command finds its reporter by the token it put in the reporter's configuration ({@link
 * #configuration}): {@link #forToken}.
 */
public final class LiveMetrics implements MetricReporter {

  /** The reporter's name in the configuration of an in-process cluster. */
  public static final String NAME = "logbench_live";
  /** The configuration key of the token the command finds its reporter by. */
  public static final String TOKEN = "token";

  static final String LINES_DONE = "linesDone";
  static final String LAG = "scheduleLagMillis";
  static final String ACKED = "linesAcked";
  static final String FAILED_PREFIX = "linesFailed_";
  static final String IN_FLIGHT = "inFlightRequests";
  static final String LATENCY = "latencyFromScheduleMicros";
  private static final Set<String> READ = Set.of(LINES_DONE, LAG, ACKED, IN_FLIGHT, LATENCY);

  private static final Map<String, LiveMetrics> BY_TOKEN = new ConcurrentHashMap<>();

  /** One metric of one subtask of a backend. */
  private record Key(String backend, String name, String subtask) {}

  private final Map<Key, Metric> live = new ConcurrentHashMap<>();
  /** Last values of metrics whose tasks ended: a Long, or a LatencyHistogram. */
  private final Map<Key, Object> ended = new ConcurrentHashMap<>();
  private String token;

  /** A backend's figures now. */
  public record Backend(long linesDone, long lagMillis, long acked, Map<String, Long> failed, long inFlight,
      LatencyHistogram latency, int liveSources) {}

  /** The Flink configuration that starts a reporter found by {@code token}. */
  public static Configuration configuration(String token) {
    String prefix = "metrics.reporter." + NAME + ".";
    return Configuration.fromMap(Map.of(prefix + "factory.class", LiveMetricsFactory.class.getName(),
        prefix + TOKEN, token));
  }

  /** The reporter started with {@code token}, or null while none is (before the cluster starts). */
  public static LiveMetrics forToken(String token) {
    return BY_TOKEN.get(token);
  }

  @Override
  public void open(MetricConfig config) {
    token = config.getString(TOKEN, "");
    BY_TOKEN.put(token, this);
  }

  @Override
  public void close() {
    BY_TOKEN.remove(token, this);
  }

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    Key key = key(name, group);
    if (key != null) {
      ended.remove(key);
      live.put(key, metric);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
    Key key = key(name, group);
    if (key != null && live.remove(key, metric)) {
      Object last = value(metric);
      if (last != null && !name.equals(LAG) && !name.equals(IN_FLIGHT)) {
        ended.put(key, last);
      }
    }
  }

  private static Key key(String name, MetricGroup group) {
    if (!READ.contains(name) && !name.startsWith(FAILED_PREFIX)) {
      return null;
    }
    Map<String, String> vars = group.getAllVariables();
    String backend = vars.get("<backend>");
    if (backend == null || vars.containsKey("<cause>")) {
      return null;
    }
    return new Key(backend, name, vars.getOrDefault("<subtask_index>", "0"));
  }

  /** A metric's value: a Long for counters and numeric gauges, a copy for a latency histogram. */
  private static Object value(Metric m) {
    if (m instanceof Counter c) {
      return c.getCount();
    }
    if (m instanceof HistogramMetric h) {
      return h.snapshot();
    }
    if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
      return n.longValue();
    }
    return null;
  }

  /** {@code backend}'s figures now; zeros before any of its tasks registered. */
  public Backend backend(String backend) {
    long lines = 0;
    long lag = 0;
    long acked = 0;
    long inFlight = 0;
    int sources = 0;
    Map<String, Long> failed = new TreeMap<>();
    LatencyHistogram latency = new LatencyHistogram();
    for (Map<Key, ?> m : java.util.List.of(live, ended)) {
      boolean running = m == live;
      for (Map.Entry<Key, ?> e : m.entrySet()) {
        Key k = e.getKey();
        if (!k.backend().equals(backend)) {
          continue;
        }
        Object v = running ? value((Metric) e.getValue()) : e.getValue();
        if (v instanceof LatencyHistogram h) {
          latency.merge(h);
        } else if (v instanceof Long n) {
          switch (k.name()) {
            case LINES_DONE -> {
              lines += n;
              sources += running ? 1 : 0;
            }
            case LAG -> lag = Math.max(lag, n);
            case ACKED -> acked += n;
            case IN_FLIGHT -> inFlight += n;
            default -> {
              if (n > 0) {
                failed.merge(k.name().substring(FAILED_PREFIX.length()), n, Long::sum);
              }
            }
          }
        }
      }
    }
    return new Backend(lines, lag, acked, failed, inFlight, latency, sources);
  }
}
