package io.logbench.job;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
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

  /** The network buffers' size {@link #smallNetworkBuffers()} sets. */
  public static final MemorySize SMALL_SEGMENT = MemorySize.parse("4kb");

  /** How many network buffers an in-process MiniCluster has by default: 64 MiB of 32 KiB. */
  static final int DEFAULT_NETWORK_BUFFERS = 2048;

  /**
   * The network memory of an in-process MiniCluster (Flink's default 64 MiB of 32-KiB buffers)
   * as the same 2,048 buffers, of 4 KiB each: 8 MiB, allocated and zeroed at every start. A job
   * that runs with Flink's defaults runs with these too (a gate or partition asks for a number of
   * buffers, not for bytes), and a record longer than a buffer spans several. For jobs whose
   * streams between tasks are light, such as a run's outcomes (about 100 bytes a batch); not for
   * those that move lines between tasks (a replay from Kafka), where 4 KiB buffers would mean 8
   * times the hand-overs. Zeroing the default 64 MiB took 0.2 CPU-s of a short run's 4.7.
   */
  public static Configuration smallNetworkBuffers() {
    Configuration conf = new Configuration();
    MemorySize total = new MemorySize(SMALL_SEGMENT.getBytes() * DEFAULT_NETWORK_BUFFERS);
    conf.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, SMALL_SEGMENT);
    conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, total);
    conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, total);
    return conf;
  }

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
