package io.logbench.bench;

import io.logbench.cli.Main;
import io.logbench.sink.kafka.KafkaTestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Wall time and process CPU of {@code publish} (the quickstart hour by default) to a real Kafka
 * broker started in this JVM (loopback; the broker's CPU is in the process figure), then of
 * replaying the published topic as fast as it goes ({@code schedule: max}) to a {@code discard}
 * backend. Run it with {@code deploy/bench/publish.sh [CONFIG] [partitions] [parallelism] [rounds]}.
 */
public final class PublishBench {

  private PublishBench() {}

  public static void main(String[] args) throws Exception {
    String config = args.length > 0 ? args[0] : "config/quickstart.yaml";
    String partitions = args.length > 1 ? args[1] : "4";
    String parallelism = args.length > 2 ? args[2] : "2";
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    String bootstrap = KafkaTestBroker.get().bootstrap();
    String topic = "bench-publish";
    for (int round = 1; round <= rounds; round++) {
      String[] publish = round == 1
          ? new String[] {"publish", config, "--bootstrap", bootstrap, "--topic", topic, "--partitions", partitions,
              "--parallelism", parallelism}
          : new String[] {"publish", config, "--bootstrap", bootstrap, "--topic", topic, "--parallelism", parallelism,
              "--overwrite"};
      measure("publish, round " + round, publish);
    }
    Path dir = Files.createTempDirectory("publish-bench");
    Path replay = dir.resolve("replay.yaml");
    Files.writeString(replay, "name: replay-bench\ndataset:\n  kind: kafka\n  bootstrap: " + bootstrap
        + "\n  topic: " + topic + "\nschedule:\n  kind: max\nparallelism: " + parallelism
        + "\nrun:\n  dir: " + dir.resolve("run") + "\nbackends:\n  - kind: discard\n");
    for (int round = 1; round <= rounds; round++) {
      measure("replay to discard (max), round " + round, "generate", replay.toString());
    }
    System.exit(0);
  }

  static void measure(String what, String... args) {
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    double wall = (System.nanoTime() - t0) / 1e9;
    double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
    System.out.printf(Locale.ROOT, "%s: exit %d, wall %.1f s, process CPU %.1f s%n", what, code, wall, cpu);
    System.out.print(out.toString(StandardCharsets.UTF_8));
    if (code != 0) {
      System.out.print(err.toString(StandardCharsets.UTF_8));
    }
  }
}
