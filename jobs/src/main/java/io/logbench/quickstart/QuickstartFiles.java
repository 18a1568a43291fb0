package io.logbench.quickstart;

import io.logbench.plan.ConfigLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Quickstart's files: its run file (config/quickstart.yaml, shipped in the jar) written into the
 * run directory with the addresses of the servers it started, and the verdicts read back from
 * verify's {@code verdicts.csv}.
 */
public final class QuickstartFiles {

  /** The run file inside the jar: config/quickstart.yaml as built. */
  static final String RESOURCE = "/io/logbench/quickstart/quickstart.yaml";
  /** Its name in the run directory. */
  public static final String RUN_FILE = "quickstart.yaml";

  private QuickstartFiles() {}

  /** config/quickstart.yaml as shipped in the jar. */
  public static String template() {
    try (InputStream in = QuickstartFiles.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("The jar has no " + RESOURCE
            + "; rebuild it with 'mvn -B -ntp -q -DskipTests package'.");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes {@code template} to {@code runDir}/{@value #RUN_FILE} with its {@code ${NAME}}
   * variables replaced from {@code values} (or their defaults; the environment is not read, so the
   * run goes to quickstart's own servers). The template's opening comment (how to run it, how
   * variables work) gives way to a line saying where the file comes from.
   */
  public static Path writeRunFile(Path runDir, String template, Map<String, String> values)
      throws IOException {
    StringBuilder out = new StringBuilder("# config/quickstart.yaml as 'logbench quickstart' ran it,"
        + " with the addresses of the servers it started.\n");
    boolean opening = true;
    for (String line : template.split("\n", -1)) {
      opening &= line.stripLeading().startsWith("#");
      if (!opening) {
        out.append(ConfigLoader.substitute(line, values::get)).append('\n');
      }
    }
    Files.createDirectories(runDir);
    Path file = runDir.resolve(RUN_FILE);
    Files.writeString(file, out.toString().stripTrailing() + "\n", StandardCharsets.UTF_8);
    return file;
  }

  /** Windows per status, by backend, in the file's order, from a {@code verdicts.csv}. */
  public static Map<String, Map<String, Integer>> verdictCounts(Path verdictsCsv) throws IOException {
    List<String> lines = Files.readAllLines(verdictsCsv, StandardCharsets.UTF_8);
    if (lines.isEmpty()) {
      throw new IOException(verdictsCsv + " is empty; expected a header and one row per window.");
    }
    List<String> header = fields(lines.get(0));
    int backend = header.indexOf("backend");
    int status = header.indexOf("status");
    if (backend < 0 || status < 0) {
      throw new IOException(verdictsCsv + " has no backend or status column: " + lines.get(0));
    }
    Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isEmpty()) {
        continue;
      }
      List<String> f = fields(line);
      out.computeIfAbsent(f.get(backend), b -> new TreeMap<>()).merge(f.get(status), 1, Integer::sum);
    }
    return out;
  }

  /** The fields of one CSV line, read as the ledger's own CSV files are (RFC 4180 quotes). */
  static List<String> fields(String line) {
    return io.logbench.ledger.LedgerFiles.splitCsv(line);
  }
}
