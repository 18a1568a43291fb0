package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
