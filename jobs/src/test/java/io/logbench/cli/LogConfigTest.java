package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.IOException;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.properties.PropertiesConfigurationFactory;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.ParameterizedMessage;
import org.junit.jupiter.api.Test;

/** The jar's log configuration: what a user running a command sees, and what they need not. */
class LogConfigTest {

  private static Configuration jarConfiguration() throws Exception {
    try (InputStream in = Files.newInputStream(Path.of("src/main/resources/log4j2.properties"))) {
      Configuration c = new PropertiesConfigurationFactory()
          .getConfiguration(new LoggerContext("log-config-test"), new ConfigurationSource(in));
      c.initialize();
      return c;
    }
  }

  private static Filter.Result filter(LoggerConfig logger, String format, Object... args) {
    return logger.getFilter().filter(Log4jLogEvent.newBuilder().setLoggerName(logger.getName())
        .setLevel(Level.WARN).setMessage(new ParameterizedMessage(format, args)).build());
  }

  @Test
  void flinksOperatorNameTruncationWarningIsDroppedAndItsOtherWarningsAreNot() throws Exception {
    LoggerConfig metricUtils = jarConfiguration().getLoggerConfig("org.apache.flink.runtime.metrics.util.MetricUtils");
    assertThat(metricUtils.getName()).isEqualTo("org.apache.flink.runtime.metrics.util.MetricUtils");
    assertThat(filter(metricUtils, "The operator name {} exceeded the {} characters length limit and was truncated.",
        "Source: source[vl] -> deliver[vl] -> breaches[vl]", 80)).isEqualTo(Filter.Result.DENY);
    assertThat(filter(metricUtils, "Failed to register metric {}.", "x")).isEqualTo(Filter.Result.NEUTRAL);
  }

  @Test
  void logbenchSpeaksAtInfoAndTheEnumeratorsStartLineIsDebugOnly() throws Exception {
    Configuration c = jarConfiguration();
    LoggerConfig enumerator = c.getLoggerConfig("io.logbench.source.internal.DatasetSplitEnumerator");
    assertThat(enumerator.getLevel()).isEqualTo(Level.INFO);
    assertThat(Level.DEBUG.isMoreSpecificThan(enumerator.getLevel())).as("a debug line is logged").isFalse();
    assertThat(c.getRootLogger().getLevel()).isEqualTo(Level.WARN);
  }

  private static Log4jLogEvent checkpointWarning(Throwable thrown) {
    return Log4jLogEvent.newBuilder().setLoggerName(QuietCheckpoints.LOGGERS.get(0)).setLevel(Level.WARN)
        .setMessage(new ParameterizedMessage("Failed to trigger or complete checkpoint {} for job {}. ({} consecutive failed attempts so far)", 8, "j", 0))
        .setThrown(thrown).build();
  }

  /**
   * A checkpoint a task declined while starting or closing, or one that reached a finished task, is
   * dropped, as Flink logs them (the coordinator's exception caused by the task's), on both loggers;
   * every other checkpoint failure is kept.
   */
  @Test
  void routineCheckpointDeclinesAreDroppedAndOtherCheckpointFailuresAreNot() throws Exception {
    LoggerContext context = new LoggerContext("quiet-checkpoints-test");
    try {
      context.start(jarConfiguration());
      assertThat(QuietCheckpoints.install(context)).as("the jar's configuration names both loggers").isEqualTo(2);
      for (String logger : QuietCheckpoints.LOGGERS) {
        routineDeclinesAreFiltered(context.getConfiguration().getLoggerConfig(logger));
      }
    } finally {
      context.stop();
    }
  }

  private static void routineDeclinesAreFiltered(LoggerConfig config) {
    CheckpointException closing = new CheckpointException(CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING);
    CheckpointException notReady = new CheckpointException("Checkpoint was declined (tasks not ready)",
        CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_NOT_READY,
        new CheckpointException(CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_NOT_READY));
    assertThat(config.isFiltered(checkpointWarning(closing))).isTrue();
    assertThat(config.isFiltered(checkpointWarning(notReady))).isTrue();
    assertThat(config.isFiltered(checkpointWarning(new CheckpointException("wrapped", CheckpointFailureReason.CHECKPOINT_DECLINED,
        closing)))).as("a routine decline under another checkpoint exception").isTrue();
    assertThat(config.isFiltered(checkpointWarning(new CheckpointException(CheckpointFailureReason.CHECKPOINT_EXPIRED)))).isFalse();
    assertThat(config.isFiltered(checkpointWarning(new CheckpointException(CheckpointFailureReason.IO_EXCEPTION,
        new IOException("disk full"))))).isFalse();
    assertThat(config.isFiltered(checkpointWarning(new CheckpointException("TaskManager received a checkpoint request for"
        + " unknown task c70f_28ff_1_0.", CheckpointFailureReason.TASK_CHECKPOINT_FAILURE)))).isTrue();
    assertThat(config.isFiltered(checkpointWarning(new CheckpointException("Asynchronous task checkpoint failed.",
        CheckpointFailureReason.TASK_CHECKPOINT_FAILURE, new IOException("disk full"))))).isFalse();
    assertThat(config.isFiltered(checkpointWarning(null))).isFalse();
    assertThat(config.getLevel()).isEqualTo(Level.WARN);
  }

  @Test
  void withoutTheLoggerInTheConfigurationNothingIsAdded() {
    LoggerContext context = new LoggerContext("quiet-checkpoints-none");
    try {
      context.start(new org.apache.logging.log4j.core.config.DefaultConfiguration());
      assertThat(QuietCheckpoints.install(context)).isZero();
      assertThat(context.getConfiguration().getRootLogger().getFilter()).isNull();
    } finally {
      context.stop();
    }
  }
}
