package io.logbench.sink.kafka;

import io.logbench.servers.KafkaNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;

/**
 * One real Kafka node (KRaft broker and controller in one, {@link KafkaNode}: the recipe {@code
 * logbench quickstart} starts too) in the test JVM, bound to 127.0.0.1 only, started on first use
 * and stopped by a shutdown hook: every ITCase of the JVM shares it.
 */
public final class KafkaTestBroker {

  /**
   * The broker's time-retention check runs from its start and then every second (Kafka: 30 s,
   * then every 5 minutes), so test records stamped May 2021 in a topic without {@code
   * retention.ms=-1} vanish at once and every test that counts them fails, instead of one test
   * failing when a check happens to fall between its write and its count.
   */
  static final Map<String, String> RETENTION_AT_ONCE =
      Map.of("log.initial.task.delay.ms", "0", "log.retention.check.interval.ms", "1000");

  private final KafkaNode node;
  private final String bootstrap;
  private final Path dir;
  private final Duration startTime;

  private KafkaTestBroker(KafkaNode node, Path dir) {
    this.node = node;
    this.bootstrap = node.bootstrap();
    this.dir = dir;
    this.startTime = node.startTime();
  }

  /** The JVM's broker, started on the first call. */
  public static KafkaTestBroker get() {
    return Holder.BROKER;
  }

  /** {@code 127.0.0.1:<port>} of the PLAINTEXT listener. */
  public String bootstrap() {
    return bootstrap;
  }

  /** How long the start took, up to the first answered admin request. */
  public Duration startTime() {
    return startTime;
  }

  /** The bytes of the log segments ({@code *.log}) of every partition of {@code topic} in the broker's log directory. */
  public long topicLogBytes(String topic) {
    return io.logbench.testing.ExternalServer.fileBytes(dir,
        p -> p.getParent().getFileName().toString().matches(java.util.regex.Pattern.quote(topic) + "-\\d+")
            && p.getFileName().toString().endsWith(".log"));
  }

  /**
   * Creates a topic of {@code partitions} partitions, one replica, that keeps its records for
   * ever ({@code retention.ms=-1}). Test records carry May 2021 timestamps, and with the default
   * 7-day time retention the broker deletes them at its next retention check (every second here,
   * {@link #RETENTION_AT_ONCE}): a count read a moment later would find an empty topic.
   */
  public void createTopic(String topic, int partitions) {
    node.createTopic(topic, partitions, Map.of("retention.ms", "-1"));
  }

  public Admin admin() {
    return node.admin();
  }

  private static KafkaTestBroker start() throws Exception {
    Path dir = Files.createTempDirectory("logbench-kafka-");
    return new KafkaTestBroker(KafkaNode.start(dir, 0, RETENTION_AT_ONCE), dir);
  }

  private void stop() {
    node.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temp dir left behind is harmless
    }
  }

  /** Starts the broker once per JVM, on first use (the JVM's class-init lock makes it once). */
  private static final class Holder {
    static final KafkaTestBroker BROKER;

    static {
      try {
        BROKER = start();
      } catch (Exception e) {
        throw new ExceptionInInitializerError(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(BROKER::stop, "kafka-test-broker-stop"));
      System.err.println("Kafka test broker at " + BROKER.bootstrap + " started in " + BROKER.startTime.toMillis() + " ms.");
    }
  }
}
