package io.logbench.cli;

import picocli.CommandLine.IVersionProvider;

/** What {@code --version} prints: logbench's version, and the Flink and Kafka it was built with. */
public final class VersionProvider implements IVersionProvider {

  @Override
  public String[] getVersion() {
    io.logbench.report.Versions v = io.logbench.report.Versions.current();
    return new String[] {
      "logbench " + v.logbench(),
      "Apache Flink " + v.flinkBuilt() + " (on the class path: " + v.flinkRuntime() + "), Kafka clients "
          + v.kafka(),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
