package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compare}'s command line: one run directory or several in one table, and a wrong one. */
class CompareCommandTest {

  @TempDir Path dir;

  private static final String INGEST_HEADER = "backend,kind,acked_lines,ack_s,ingest_s,lines_per_s,stored_bytes,"
      + "bytes_per_line,raw_bytes_per_line,notes\n";

  private Path run(String name, String backend, String run) throws Exception {
    Path d = Files.createDirectories(dir.resolve(name));
    Files.writeString(d.resolve("ingest.csv"), INGEST_HEADER + backend + "," + backend + ",1000,1.0,2.0,500,"
        + "17000,17.0,79.7,\n");
    Files.writeString(d.resolve("run.json"), "{\"name\":\"" + run + "\"}");
    return d;
  }

  @Test
  void severalRunDirectoriesArePrintedAsOneTable() throws Exception {
    Path loki = run("loki", "loki", "day-loki");
    Path fanout = run("fanout", "victorialogs", "day-fanout");
    Printed one = Printed.run("compare", loki.toString());
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(one.out()).startsWith("run day-loki\n").contains("\nloki                         loki ");
    Printed two = Printed.run("compare", loki.toString(), fanout.toString());
    assertThat(two.code()).as(two.err()).isZero();
    assertThat(two.out()).startsWith("runs day-loki, day-fanout\n")
        .contains("\nloki/loki                    loki ", "\nfanout/victorialogs          victorialogs ");
  }

  @Test
  void aRunDirectoryThatIsNotThereIsNamed() throws Exception {
    Path loki = run("loki", "loki", "day-loki");
    Printed p = Printed.run("compare", loki.toString(), dir.resolve("nope").toString());
    assertThat(p.code()).isEqualTo(2);
    assertThat(p.err()).contains("compare: RUN_DIR " + dir.resolve("nope") + " is not a directory; expected a run"
        + " directory (the --run-dir of generate, or run.dir of the run file).");
    assertThat(p.out()).isEmpty();
  }
}
