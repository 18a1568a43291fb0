package io.logbench.report;

import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Writes {@value #FILE}: the report of a run directory, or of two runs side by side. {@code
 * generate} writes it when it ends and {@code verify} rewrites it, through {@link #refresh}, which
 * never fails the command that calls it. The run directories may be anywhere {@link RunDir} reaches.
 */
public final class Reports {

  public static final String FILE = "report.html";

  private Reports() {}

  /**
   * Renders the report of {@code runDir} to {@code out}.
   *
   * @param config the run file to show when run.json's is gone, or null
   * @return the page's size in bytes
   */
  public static long write(Path runDir, Path out, Path config) throws IOException {
    return writeTo(out, render(RunDir.of(runDir), config));
  }

  /** The report page of {@code runDir}. */
  public static byte[] render(RunDir runDir, Path config) {
    Versions v = Versions.current();
    return HtmlPage.render(RunReport.document(RunData.read(runDir, config), v), v).getBytes(StandardCharsets.UTF_8);
  }

  /** The page of {@code baseline} and {@code contender} side by side. */
  public static byte[] renderCompare(RunDir baseline, RunDir contender, Path config) {
    Versions v = Versions.current();
    ReportDocument doc = CompareReport.document(RunData.read(baseline, config), RunData.read(contender, null), v);
    return HtmlPage.render(doc, v).getBytes(StandardCharsets.UTF_8);
  }

  /** Renders {@code baseline} and {@code contender} side by side to {@code out}. */
  public static long writeCompare(Path baseline, Path contender, Path out, Path config) throws IOException {
    return writeTo(out, renderCompare(RunDir.of(baseline), RunDir.of(contender), config));
  }

  /**
   * Rewrites {@code runDir}/{@value #FILE}; a failure is printed as a warning on {@code err} and
   * does not change the calling command's outcome.
   *
   * @return whether the report was written
   */
  public static boolean refresh(Path runDir, String command, PrintStream out, PrintStream err) {
    return refresh(RunDir.of(runDir), command, out, err);
  }

  /** As {@link #refresh(Path, String, PrintStream, PrintStream)}, for a run directory anywhere. */
  public static boolean refresh(RunDir runDir, String command, PrintStream out, PrintStream err) {
    String file = runDir.describe(FILE);
    try {
      runDir.write(FILE, render(runDir, null));
      out.println("wrote " + file);
      return true;
    } catch (IOException | RuntimeException e) {
      err.println(command + ": warning: the report " + file + " could not be written: " + e);
      return false;
    }
  }

  /** Writes {@code page} to the local file {@code out}, whole (through a temporary file of its own). */
  private static long writeTo(Path out, byte[] page) throws IOException {
    Path abs = out.toAbsolutePath();
    RunDir.of(abs.getParent()).write(abs.getFileName().toString(), page);
    return page.length;
  }
}
