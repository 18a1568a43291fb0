package io.logbench.job;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.ZipFile;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A Flink cluster that the command line submits its jobs to ({@code --cluster
 * http://HOST:PORT}), through Flink's own REST client: the command builds the job here exactly as
 * it does in-process, and Flink's remote executor ({@code RestClusterClient}) uploads the job jar
 * with the job graph ({@code POST /jobs}), follows the job ({@code /jobs/:id/execution-result})
 * and carries the collect sinks' results back, so the command prints and writes what a local run
 * does. While the job runs, a JVM shutdown hook cancels it when the command line is stopped
 * (Ctrl-C, SIGTERM): a run nobody follows must not keep sending.
 */
public final class ClusterTarget {

  /** The REST port of a URL that names none: Flink's default {@code rest.port}. */
  public static final int DEFAULT_PORT = 8081;
  /** The cluster jar's file name, beside {@code logbench.jar} in {@code jobs/target/}. */
  public static final String JOB_JAR = "logbench-job.jar";
  /**
   * How long after generate fixes the run's start the run begins on a cluster: the job jar (34 MB)
   * goes up with every job, and submitting and deploying took 15 to 25 s on two busy cores.
   */
  public static final java.time.Duration START_LEAD = java.time.Duration.ofSeconds(30);

  private final URI rest;
  private final Path jobJar;

  private ClusterTarget(URI rest, Path jobJar) {
    this.rest = rest;
    this.jobJar = jobJar;
  }

  /**
   * The cluster at {@code url} (its REST endpoint, as the web UI's address: {@code
   * http://127.0.0.1:8081}), running jobs from {@code jobJar} ({@link #defaultJobJar} when null).
   *
   * @throws IllegalArgumentException naming the value and what was expected
   */
  public static ClusterTarget of(String url, Path jobJar) {
    URI uri = rest(url);
    Path jar = jobJar != null ? jobJar.toAbsolutePath().normalize() : defaultJobJar();
    checkJar(jar, jobJar == null);
    return new ClusterTarget(uri, jar);
  }

  /** {@code url} as a REST endpoint {@code http://host:port}, or why it is not one. */
  static URI rest(String url) {
    if (!url.strip().matches("(?i)[a-z][a-z0-9+.-]*://.*")) {
      throw new IllegalArgumentException(bad(url, "it does not start with http://HOST"));
    }
    URI uri;
    try {
      uri = new URI(url.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(bad(url, "it is not a URL (" + e.getReason() + ")"));
    }
    if ("https".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(bad(url, "https is not supported; submit through an http endpoint"
          + " (a TLS-terminating proxy in front of the cluster, or Flink's own client with rest.ssl.* settings)"));
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException(bad(url, "it does not start with http://HOST"));
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (!path.isEmpty() && !path.equals("/") || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(bad(url, "Flink's REST API is served at the root of its address, without"
          + " a path, query or fragment"));
    }
    int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
    return URI.create("http://" + (uri.getHost().contains(":") && !uri.getHost().startsWith("[")
        ? "[" + uri.getHost() + "]" : uri.getHost()) + ":" + port);
  }

  private static String bad(String url, String why) {
    return "--cluster " + url + " is not valid: " + why + "; expected the cluster's REST address, such as"
        + " http://127.0.0.1:8081.";
  }

  /**
   * {@value #JOB_JAR} beside the jar (or the classes directory's parent, as in {@code
   * jobs/target/}) this class was loaded from: where the build puts both jars.
   */
  public static Path defaultJobJar() {
    try {
      Path here = Path.of(ClusterTarget.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return here.toAbsolutePath().getParent().resolve(JOB_JAR);
    } catch (URISyntaxException | RuntimeException e) {
      return Path.of(JOB_JAR).toAbsolutePath();
    }
  }

  /** The job jar is a readable jar holding logbench's command line, or a clear error. */
  private static void checkJar(Path jar, boolean implied) {
    String how = implied ? " (found beside logbench.jar; build it with mvn -DskipTests package, or give --job-jar"
        + " PATH)" : "";
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException("The job jar " + jar + " does not exist" + how + "; expected "
          + JOB_JAR + ", the jar the cluster runs logbench's jobs from.");
    }
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      if (zip.getEntry("io/logbench/cli/Main.class") == null) {
        throw new IllegalArgumentException("The job jar " + jar + " holds no logbench classes" + how + "; expected "
            + JOB_JAR + " from logbench's build.");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("The job jar " + jar + " cannot be read as a jar (" + e.getMessage() + ")"
          + how + "; expected " + JOB_JAR + " from logbench's build.");
    }
  }

  /** The REST endpoint, {@code http://host:port}. */
  public URI rest() {
    return rest;
  }

  /** The jar the cluster runs the job from (uploaded with the job). */
  public Path jobJar() {
    return jobJar;
  }

  /**
   * A session of {@code command} on this cluster: its environment submits here, and closing it
   * (or stopping the JVM) cancels a job that is still running.
   */
  public Session open(String command, PrintStream err) {
    return new Session(command, err);
  }

  /** One command's jobs on the cluster, cancelled if the command stops before they end. */
  public final class Session implements AutoCloseable, JobListener {

    private final String command;
    private final PrintStream err;
    private final List<JobClient> jobs = new CopyOnWriteArrayList<>();
    private final List<Thread> hooks = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private Session(String command, PrintStream err) {
      this.command = command;
      this.err = err;
    }

    /**
     * An environment that submits to the cluster with the job jar, at {@code parallelism} when it
     * is positive (else the cluster's default).
     */
    public StreamExecutionEnvironment environment(int parallelism) {
      StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(
          rest.getHost(), rest.getPort(), new Configuration(), jobJar.toString());
      if (parallelism > 0) {
        env.setParallelism(parallelism);
      }
      env.registerJobListener(this);
      return env;
    }

    /** The jobs submitted so far in this session. */
    public List<JobClient> jobs() {
      return List.copyOf(jobs);
    }

    @Override
    public void onJobSubmitted(JobClient client, Throwable failure) {
      if (client == null) {
        return; // the submission failed; the caller gets the exception
      }
      jobs.add(client);
      String id = client.getJobID().toHexString();
      err.println(command + ": job " + id + " submitted to " + rest + " with " + jobJar.getFileName()
          + " (web UI " + rest + "/#/job/running/" + id + "/overview); Ctrl-C cancels it");
      Thread hook = new Thread(() -> cancelIfRunning(client, "stopped"), "logbench-cancel-" + id);
      hooks.add(hook);
      Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void onJobExecuted(JobExecutionResult result, Throwable failure) {
      // executeAsync never calls this; close() ends the session
    }

    /**
     * Cancels a job of this session that is still running (the command ended early: a failure
     * at the client) and removes the shutdown hooks.
     */
    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      for (JobClient job : jobs) {
        cancelIfRunning(job, "ended before its job");
      }
      for (Thread hook : hooks) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // the JVM is shutting down: the hook runs (or ran) anyway
        }
      }
    }

    private void cancelIfRunning(JobClient job, String why) {
      String id = job.getJobID().toHexString();
      try {
        JobStatus status = job.getJobStatus().get(10, TimeUnit.SECONDS);
        if (status.isGloballyTerminalState()) {
          return;
        }
        err.println(command + ": " + why + ": cancelling job " + id + " on " + rest + " (" + status + ")");
        job.cancel().get(30, TimeUnit.SECONDS);
        err.println(command + ": job " + id + " cancelled");
      } catch (Exception e) {
        err.println(command + ": could not cancel job " + id + " on " + rest + " (" + e + "); cancel it with"
            + " PATCH " + rest + "/jobs/" + id + "?mode=cancel or flink cancel " + id + ".");
      }
    }
  }
}
