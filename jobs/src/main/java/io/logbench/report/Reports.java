package io.logbench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes {@value #FILE}: the report of a run directory, or of two runs side by side. {@code
 * generate} writes it when it ends and {@code verify} rewrites it, through {@link #refresh}, which
 * never fails the command that calls it.
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
    Versions v = Versions.current();
    return writeAtomically(out, HtmlPage.render(RunReport.document(RunData.read(runDir, config), v), v));
  }

  /** Renders {@code baseline} and {@code contender} side by side to {@code out}. */
  public static long writeCompare(Path baseline, Path contender, Path out, Path config) throws IOException {
    Versions v = Versions.current();
    ReportDocument doc = CompareReport.document(RunData.read(baseline, config), RunData.read(contender, null), v);
    return writeAtomically(out, HtmlPage.render(doc, v));
  }

  /**
   * Rewrites {@code runDir}/{@value #FILE}; a failure is printed as a warning on {@code err} and
   * does not change the calling command's outcome.
   *
   * @return whether the report was written
   */
  public static boolean refresh(Path runDir, String command, PrintStream out, PrintStream err) {
    Path file = runDir.resolve(FILE);
    try {
      write(runDir, file, null);
      out.println("wrote " + file);
      return true;
    } catch (IOException | RuntimeException e) {
      err.println(command + ": warning: the report " + file + " could not be written: " + e);
      return false;
    }
  }

  private static long writeAtomically(Path out, String html) throws IOException {
    Path dir = out.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    // a temporary file of its own: a continuous verify and generate may both rewrite the page
    Path tmp = Files.createTempFile(dir, out.getFileName().toString(), ".tmp");
    try {
      byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
      Files.write(tmp, bytes);
      Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return bytes.length;
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
