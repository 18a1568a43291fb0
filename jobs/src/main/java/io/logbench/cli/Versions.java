package io.logbench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The versions {@code --version} prints: logbench's and the Flink and Kafka it was built with. */
public final class Versions implements IVersionProvider {

  private static final Properties BUILD = load();

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in = Versions.class.getResourceAsStream("/io/logbench/version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // unknown versions print as such
    }
    return p;
  }

  /** logbench's version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String logbench() {
    return BUILD.getProperty("logbench", "unknown");
  }

  /** The Flink version logbench was built against. */
  public static String flink() {
    return BUILD.getProperty("flink", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "logbench " + logbench(),
      "Apache Flink " + flink() + ", Kafka clients " + BUILD.getProperty("kafka", "unknown"),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
