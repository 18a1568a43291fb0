package io.logbench.job;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The execution environment for logbench's jobs: the cluster's when submitted with {@code flink
 * run}, otherwise an in-process MiniCluster that binds loopback only.
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

  /** The environment, with the given parallelism when it is positive. */
  public static StreamExecutionEnvironment create(int parallelism) {
    return create(parallelism, new Configuration());
  }

  /**
   * As {@link #create(int)}, with {@code extra} (e.g. a metrics reporter) added to the in-process
   * MiniCluster's configuration; on a cluster the cluster's own configuration rules.
   */
  public static StreamExecutionEnvironment create(int parallelism, Configuration extra) {
    Configuration conf = loopback();
    conf.addAll(extra);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    if (parallelism > 0) {
      env.setParallelism(parallelism);
    }
    return env;
  }
}
