package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.kafka.KafkaTestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replaying published datasets, against a real Kafka and a real OpenSearch in the test JVM: the
 * issue's "done when" (publish the quickstart hour, generate the shipped replay run to OpenSearch
 * and files, verify every window OK, files byte-identical to {@code dataset}'s), and several runs
 * replaying one topic at once under every other schedule and timestamp mode.
 */
class ReplayITCase {

  static final Path QUICKSTART = Path.of("..", "config", "quickstart.yaml");
  static final Path REPLAY = Path.of("..", "config", "quickstart-replay.yaml");
  static final String[] PROPERTIES = {"KAFKA_BOOTSTRAP", "REPLAY_TOPIC", "OPENSEARCH_URL", "OPENSEARCH_INDEX",
    "LOGBENCH_RUN_DIR"};

  @TempDir Path tmp;

  record Run(int code, String out, String err) {
    String describe() {
      return "exit " + code + "; stdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @AfterEach
  void clear() {
    for (String p : PROPERTIES) {
      System.clearProperty(p);
    }
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  static void assertEveryWindowOk(Path runDir, int backends, int windows) throws Exception {
    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).hasSize(1 + backends * windows);
    assertThat(verdicts.subList(1, verdicts.size())).allMatch(l -> l.split(",")[3].equals("OK"));
  }

  @Test
  void quickstartHourPublishedThenReplayedToOpenSearchAndFilesVerifiesAndMatchesTheDatasetCommand()
      throws Exception {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    Run published = run("publish", QUICKSTART.toString(), "--bootstrap", bootstrap, "--topic", "quickstart-hour-it");
    assertThat(published.code()).as(published.describe()).isZero();
    assertThat(published.out()).startsWith("published 716,707 lines to Kafka topic quickstart-hour-it");

    Path runDir = tmp.resolve("run");
    System.setProperty("KAFKA_BOOTSTRAP", bootstrap);
    System.setProperty("REPLAY_TOPIC", "quickstart-hour-it");
    System.setProperty("OPENSEARCH_URL", OpenSearchTestServer.get().url());
    System.setProperty("OPENSEARCH_INDEX", "quickstart-replay-it");
    System.setProperty("LOGBENCH_RUN_DIR", runDir.toString());
    Run generated = run("generate", REPLAY.toString());
    assertThat(generated.code()).as(generated.describe()).isZero();
    Run verified = run("verify", REPLAY.toString());
    assertThat(verified.code()).as(verified.describe()).isZero();
    assertEveryWindowOk(runDir, 2, 60);

    // the files backend wrote exactly what the dataset command writes for the hour, which is the
    // seed script's file: its size, and its first three minutes (seed004/script-slices.csv)
    Path made = tmp.resolve("dataset");
    Run dataset = run("dataset", QUICKSTART.toString(), "--out", made.toString());
    assertThat(dataset.code()).as(dataset.describe()).isZero();
    byte[] replayed = Files.readAllBytes(runDir.resolve("logdir").resolve("2021-05-01.log"));
    byte[] generatedHere = Files.readAllBytes(made.resolve("2021-05-01.log"));
    assertThat(replayed.length).isEqualTo(57_117_576);
    assertThat(sha256(replayed)).isEqualTo(sha256(generatedHere));
    assertThat(sha256(Arrays.copyOf(replayed, 2_954_059)))
        .isEqualTo("c422a1bb1f05ee4a73e5f9a1e4a8cbe060577d15f82ebf80849831b269bf8ee1");
  }

  @Test
  void threeRunsReplayOneTopicAtOnceUnderConstantLadderAndMaxSchedules() throws Exception {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    Path slice = tmp.resolve("slice.yaml");
    Files.writeString(slice, "name: slice\ndataset:\n  kind: nginx-month\n"
        + "  from: \"2021-05-01T00:00:00-03:00\"\n  until: \"2021-05-01T00:03:00-03:00\"\n");
    Run published = run("publish", slice.toString(), "--bootstrap", bootstrap, "--topic", "replay-many",
        "--partitions", "3");
    assertThat(published.code()).as(published.describe()).isZero();

    String dataset = "dataset:\n  kind: kafka\n  bootstrap: " + bootstrap + "\n  topic: replay-many\n";
    String opensearch = "  - kind: opensearch\n    url: " + OpenSearchTestServer.get().url() + "\n    index: ";
    List<Path> runs = new ArrayList<>();
    runs.add(runFile("constant-now", dataset + "schedule:\n  kind: constant\n  rate: 40000\ntimestamps: now\n"
        + "backends:\n" + opensearch + "replay-constant-now\n"));
    runs.add(runFile("ladder-compressed", dataset + "schedule:\n  kind: ladder\n  steps: [20000, 60000]\n"
        + "  ramp: 1s\n  hold: 1s\ntimestamps: compressed\nbackends:\n" + opensearch + "replay-ladder-compressed\n"));
    runs.add(runFile("max-original", dataset + "schedule:\n  kind: max\ntimestamps: original\nbackends:\n"
        + "  - kind: files\n    dir: " + tmp.resolve("max-original").resolve("logdir") + "\n"));

    ExecutorService pool = Executors.newFixedThreadPool(runs.size());
    try {
      List<Future<Run>> generating = new ArrayList<>();
      for (Path r : runs) {
        generating.add(pool.submit(() -> run("generate", r.toString())));
      }
      for (Future<Run> g : generating) {
        Run done = g.get(10, TimeUnit.MINUTES);
        assertThat(done.code()).as(done.describe()).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    for (Path r : runs) {
      Run verified = run("verify", r.toString());
      assertThat(verified.code()).as(verified.describe()).isZero();
    }
    // the now and compressed runs span their own few seconds (a window or two); the original one
    // is the three minutes of May 2021 it was published as
    for (String name : List.of("constant-now", "ladder-compressed")) {
      List<String> verdicts = Files.readAllLines(tmp.resolve(name).resolve("verdicts.csv"));
      assertThat(verdicts.subList(1, verdicts.size())).isNotEmpty().allMatch(l -> l.split(",")[3].equals("OK"));
    }
    assertEveryWindowOk(tmp.resolve("max-original"), 1, 3);
    byte[] files = Files.readAllBytes(tmp.resolve("max-original").resolve("logdir").resolve("2021-05-01.log"));
    assertThat(files.length).isEqualTo(2_954_059);
    assertThat(sha256(files)).isEqualTo("c422a1bb1f05ee4a73e5f9a1e4a8cbe060577d15f82ebf80849831b269bf8ee1");
  }

  Path runFile(String name, String body) throws Exception {
    Path file = tmp.resolve(name + ".yaml");
    Files.writeString(file, "name: " + name + "\n" + body + "run:\n  dir: " + tmp.resolve(name) + "\n");
    return file;
  }
}
