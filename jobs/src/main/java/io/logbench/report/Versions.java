package io.logbench.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * The versions of this logbench: its own, the Flink it was built against and the one it runs on,
 * and the uPlot whose script the report inlines. The built ones come from {@code
 * versions.properties}, which Maven fills in when it builds the jar.
 *
 * @param logbench logbench's version
 * @param flinkBuilt the Flink version logbench was built against
 * @param flinkRuntime the Flink version on the class path now ({@code <unknown>} when Flink cannot
 *     tell)
 * @param uplot the uPlot version inlined into reports
 * @param kafka the Kafka clients version logbench was built against
 */
public record Versions(String logbench, String flinkBuilt, String flinkRuntime, String uplot, String kafka) {

  private static final String FILE = "versions.properties";
  private static final String UNKNOWN = "unknown";

  /** The versions of the running logbench. */
  public static Versions current() {
    Properties p = new Properties();
    // absent only from a build that skipped Maven's resources: versions unknown, runs still run
    try (InputStream in = Versions.class.getResourceAsStream(FILE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Versions(p.getProperty("logbench.version", UNKNOWN), p.getProperty("flink.version", UNKNOWN),
        EnvironmentInformation.getVersion(), p.getProperty("uplot.version", UNKNOWN),
        p.getProperty("kafka.version", UNKNOWN));
  }
}
