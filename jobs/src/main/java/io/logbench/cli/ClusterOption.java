package io.logbench.cli;

import io.logbench.job.ClusterTarget;
import io.logbench.job.FlinkEnvironments;
import io.logbench.job.GenerateJob;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Option;

/**
 * {@code --cluster URL [--job-jar PATH]}, shared by the commands that run a job: the job goes to
 * the Flink cluster whose REST API is at URL ({@link ClusterTarget}) instead of an in-process
 * MiniCluster; everything else the command does (checks, summary, files) stays the same.
 */
final class ClusterOption {

  @Option(names = "--cluster", paramLabel = "URL",
      description = "Run the job on the Flink cluster whose REST API is at URL (e.g. http://127.0.0.1:8081)"
          + " instead of in-process: logbench-job.jar goes with it, the command follows the job and prints the"
          + " same results; Ctrl-C cancels it.")
  String url;

  @Option(names = "--job-jar", paramLabel = "PATH",
      description = "The jar the cluster runs the job from (default: logbench-job.jar beside logbench.jar).")
  Path jobJar;

  /**
   * Where {@code command}'s job runs: the cluster, or in-process. {@code metrics} (a reporter) is
   * for the in-process cluster only; with {@code --cluster} it is refused, since a cluster loads
   * its reporters when it starts. In-process, {@code metrics} is read each time an environment is
   * made, so settings that depend on the run file (read after the options are checked here) can
   * still be added to it.
   */
  Jobs open(String command, Configuration metrics, PrintStream err) {
    if (url == null) {
      if (jobJar != null) {
        throw new UsageException(command + ": --job-jar " + jobJar + " is only used with --cluster URL; give"
            + " both or neither.");
      }
      return parallelism -> FlinkEnvironments.create(parallelism, metrics);
    }
    if (!metrics.keySet().isEmpty()) {
      throw new UsageException(command + ": --prometheus serves the in-process cluster's metrics and cannot"
          + " be used with --cluster " + url + "; configure the cluster's own Prometheus reporter"
          + " (docs/getting-started.md).");
    }
    ClusterTarget target;
    try {
      target = ClusterTarget.of(url, jobJar);
    } catch (IllegalArgumentException e) {
      throw new UsageException(command + ": " + e.getMessage());
    }
    ClusterTarget.Session session = target.open(command, err);
    return new Jobs() {
      @Override
      public StreamExecutionEnvironment environment(int parallelism) {
        return session.environment(parallelism);
      }

      @Override
      public Duration startLead() {
        return ClusterTarget.START_LEAD;
      }

      @Override
      public void close() {
        session.close();
      }
    };
  }

  /** Where a command's jobs run; closing it cancels a cluster job the command left running. */
  interface Jobs extends AutoCloseable {

    /** The environment of a job at {@code parallelism} (the default when not positive). */
    StreamExecutionEnvironment environment(int parallelism);

    /**
     * How long after the client fixes a run's start the run begins: time to submit and deploy the
     * job, short in-process, longer on a cluster (the job jar is uploaded with every job).
     */
    default Duration startLead() {
      return GenerateJob.DEFAULT_START_LEAD;
    }

    @Override
    default void close() {}
  }
}
