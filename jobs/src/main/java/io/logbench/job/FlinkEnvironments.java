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
