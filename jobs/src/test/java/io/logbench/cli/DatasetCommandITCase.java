package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * {@code dataset} on a Flink MiniCluster writes slices byte-identical to the seed 004 script's
 * files (their sizes and SHA-256 are in seed004/script-slices.csv, made by running the script).
 */
class DatasetCommandITCase {

  static final OffsetDateTime MONTH_START = OffsetDateTime.parse("2021-05-01T00:00:00-03:00");

  @TempDir Path tmp;

  static Stream<String> slices() throws IOException {
    try (InputStream in = DatasetCommandITCase.class.getResourceAsStream("/seed004/script-slices.csv")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList().stream();
    }
  }

  static String sha256(Path file) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    return HexFormat.of().formatHex(md.digest(Files.readAllBytes(file)));
  }

  static int run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
    if (code != 0) {
      System.err.println(err.toString(StandardCharsets.UTF_8));
    }
    return code;
  }

  @ParameterizedTest
  @MethodSource("slices")
  void sliceIsByteIdenticalToTheScripts(String row) throws Exception {
    String[] f = row.split(",");
    int first = Integer.parseInt(f[1]);
    int end = Integer.parseInt(f[2]);
    Path out = tmp.resolve("logdir");
    assertThat(run("dataset", "../config/seed004-month.yaml", "--out", out.toString(),
        "--from", MONTH_START.plusMinutes(first).toString(),
        "--until", MONTH_START.plusMinutes(end).toString(), "--parallelism", "2")).isZero();
    try (Stream<Path> files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly(f[0]);
    }
    assertThat(Files.size(out.resolve(f[0]))).isEqualTo(Long.parseLong(f[3]));
    assertThat(sha256(out.resolve(f[0]))).isEqualTo(f[4]);
  }

  @Test
  void fastModeAndParallelismGiveTheSameFiles() throws Exception {
    // a slice across midnight: two day files, many chunks, at parallelism 1 and 3
    Path config = tmp.resolve("fast.yaml");
    Files.writeString(config, "name: fast\ndataset:\n  kind: nginx-month\n  mode: fast\n"
        + "  from: \"2021-05-01T23:50:00-03:00\"\n  until: \"2021-05-02T00:10:00-03:00\"\n");
    Path one = tmp.resolve("p1");
    Path three = tmp.resolve("p3");
    assertThat(run("dataset", config.toString(), "--out", one.toString(), "--parallelism", "1")).isZero();
    assertThat(run("dataset", config.toString(), "--out", three.toString(), "--parallelism", "3")).isZero();
    for (String name : List.of("2021-05-01.log", "2021-05-02.log")) {
      assertThat(sha256(three.resolve(name))).isEqualTo(sha256(one.resolve(name)));
      List<String> lines = Files.readAllLines(one.resolve(name));
      assertThat(lines).allMatch(l -> l.startsWith("{ \"time\":\"[0") && l.endsWith("\" }"));
    }
    long lines = Files.readAllLines(one.resolve("2021-05-01.log")).size()
        + Files.readAllLines(one.resolve("2021-05-02.log")).size();
    assertThat(lines).isEqualTo(planLines(config));
  }

  static long planLines(Path config) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Main.run(new String[] {"plan", config.toString(), "--csv"}, new PrintStream(out, true), System.err);
    return out.toString().lines().skip(1).mapToLong(l -> Long.parseLong(l.split(",")[1])).sum();
  }
}
