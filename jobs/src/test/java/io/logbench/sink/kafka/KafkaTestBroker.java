package io.logbench.sink.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One real Kafka node (KRaft broker and controller in one) in the test JVM, bound to 127.0.0.1
 * only, started on first use and stopped by a shutdown hook: every ITCase of the JVM shares it.
 * Internal topics have one replica (and min ISR 1), so transactions work on a single node.
 */
public final class KafkaTestBroker {

  private static final String CONTROLLER = "CONTROLLER";

  private final KafkaRaftServer server;
  private final String bootstrap;
  private final Path dir;
  private final Duration startTime;

  private KafkaTestBroker(KafkaRaftServer server, String bootstrap, Path dir, Duration startTime) {
    this.server = server;
    this.bootstrap = bootstrap;
    this.dir = dir;
    this.startTime = startTime;
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

  /** Creates a topic of {@code partitions} partitions, one replica. */
  public void createTopic(String topic, int partitions) {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("Creating topic " + topic + " failed.", e);
    }
  }

  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  private static KafkaTestBroker start() throws Exception {
    long t0 = System.nanoTime();
    Path dir = Files.createTempDirectory("logbench-kafka-");
    int port = freePort();
    int controllerPort = freePort();
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put("controller.listener.names", CONTROLLER);
    props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + "," + CONTROLLER + "://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("log.dirs", dir.toString());
    props.put("metadata.log.dir", dir.toString());
    props.put("num.partitions", "1");
    props.put("default.replication.factor", "1");
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("auto.create.topics.enable", "false");
    KafkaConfig config = KafkaConfig.fromProps(props, false);

    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .addDirectory(dir.toString())
        .setMetadataLogDirectory(dir.toString())
        .setReleaseVersion(MetadataVersion.latestProduction())
        .setControllerListenerName(CONTROLLER)
        .run();

    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    String bootstrap = "127.0.0.1:" + port;
    awaitReady(bootstrap);
    return new KafkaTestBroker(server, bootstrap, dir, Duration.ofNanos(System.nanoTime() - t0));
  }

  private static void awaitReady(String bootstrap) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      while (true) {
        Exception last = null;
        try {
          if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
          last = e;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "The test Kafka broker at " + bootstrap + " did not answer within 60 s.", last);
        }
        Thread.onSpinWait();
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void stop() {
    server.shutdown();
    server.awaitShutdown();
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
