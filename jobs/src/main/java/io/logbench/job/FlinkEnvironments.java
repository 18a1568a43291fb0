package io.logbench.job;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The execution environment for logbench's jobs: the cluster's when the command runs inside one
 * (submitted with {@code flink run}, a REST jar run or an application cluster: Flink then provides
 * a context environment), otherwise an in-process MiniCluster that binds loopback only. The
 * loopback settings go only to the MiniCluster: merged into a cluster's context they would
 * override the client's own addresses.
 */
public final class FlinkEnvironments {

  /**
   * The system property that sets the tick of Pekko's scheduler, which Flink's RPC runs on: Flink
   * builds its actor systems' configuration itself, with no key for the tick, and Pekko reads the
   * keys Flink leaves out from its {@code reference.conf} overlaid with the JVM's system properties.
   */
  public static final String PEKKO_TICK_PROPERTY = "pekko.scheduler.tick-duration";

  /**
   * The tick an in-process MiniCluster's Pekko schedulers get, instead of Pekko's 10 ms. Each
   * actor system (the MiniCluster's RPC and its metric query service) has a scheduler thread that
   * wakes every tick whether or not anything is due: 200 wake-ups a second, about a third of an
   * idle embedded run's CPU outside the JIT. Flink's own timers (checkpoints, sources, buffer
   * flushes, heartbeats' intervals) do not run on it; what does (RPC timeouts, delayed RPC calls
   * such as heartbeat timeouts and restart back-offs) fires up to one tick later, which nothing of
   * a run measures.
   */
  public static final String EMBEDDED_PEKKO_TICK = "100ms";

  private FlinkEnvironments() {}

  /** Loopback bindings for an in-process MiniCluster (it must never listen on other addresses). */
  public static Configuration loopback() {
    Configuration conf = new Configuration();
    conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(TaskManagerOptions.HOST, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    return conf;
  }

  /**
   * Sets {@value #PEKKO_TICK_PROPERTY} to {@value #EMBEDDED_PEKKO_TICK} for the MiniCluster this
   * JVM starts, unless the JVM was given one ({@code -Dpekko.scheduler.tick-duration=...}). Only for
   * an in-process MiniCluster: a cluster's context keeps its own settings.
   */
  static void slowPekkoTick() {
    if (System.getProperty(PEKKO_TICK_PROPERTY) == null) {
      System.setProperty(PEKKO_TICK_PROPERTY, EMBEDDED_PEKKO_TICK);
    }
  }

  /**
   * Whether this JVM runs logbench inside a Flink cluster's context (a {@code flink run} client, a
   * JobManager running the jar, a test MiniCluster) rather than on its own.
   */
  public static boolean insideCluster() {
    return !(StreamExecutionEnvironment.getExecutionEnvironment() instanceof LocalStreamEnvironment);
  }

  /** The environment, with the given parallelism when it is positive. */
  public static StreamExecutionEnvironment create(int parallelism) {
    return create(parallelism, new Configuration());
  }

  /**
   * As {@link #create(int)}, with {@code extra} (e.g. a metrics reporter) added to the in-process
   * MiniCluster's configuration; on a cluster the cluster's own configuration rules.
   */
  public static StreamExecutionEnvironment create(int parallelism, Configuration extra) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    if (env instanceof LocalStreamEnvironment) {
      slowPekkoTick();
      Configuration conf = loopback();
      conf.addAll(extra);
      env = StreamExecutionEnvironment.createLocalEnvironment(conf);
    }
    if (parallelism > 0) {
      env.setParallelism(parallelism);
    }
    return env;
  }
}
