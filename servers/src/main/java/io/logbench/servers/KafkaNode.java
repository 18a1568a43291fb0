package io.logbench.servers;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * One real Kafka node, KRaft broker and controller in one, bound to 127.0.0.1 only, its log in a
 * directory of its own. Internal topics have one replica (and min ISR 1), so transactions work on
 * a single node; topics are not created on demand, as on many production clusters.
 */
public final class KafkaNode implements AutoCloseable {

  private static final String CONTROLLER = "CONTROLLER";
  /** How long the node may take to answer its first admin request. */
  static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  private final KafkaRaftServer server;
  private final String bootstrap;
  private final Path dir;
  private final Duration startTime;

  private KafkaNode(KafkaRaftServer server, String bootstrap, Path dir, Duration startTime) {
    this.server = server;
    this.bootstrap = bootstrap;
    this.dir = dir;
    this.startTime = startTime;
  }

  /**
   * Formats {@code dir} and starts a node whose PLAINTEXT listener is {@code 127.0.0.1:port} (0:
   * a free port); returns once it answers an admin request.
   */
  public static KafkaNode start(Path dir, int port) throws Exception {
    return start(dir, port, Map.of());
  }

  /**
   * {@link #start(Path, int)} with broker settings {@code overrides} put over this recipe's (a
   * test broker checks retention every second, so a topic that would lose old records loses them
   * at once rather than minutes into a test run).
   */
  public static KafkaNode start(Path dir, int port, Map<String, String> overrides) throws Exception {
    long t0 = System.nanoTime();
    int plain = port == 0 ? Ports.free() : port;
    int controllerPort = Ports.free();
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put("controller.listener.names", CONTROLLER);
    props.put("listeners", "PLAINTEXT://127.0.0.1:" + plain + "," + CONTROLLER + "://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + plain);
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
    props.putAll(overrides);
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
    String bootstrap = "127.0.0.1:" + plain;
    try {
      awaitReady(bootstrap);
    } catch (Exception e) {
      server.shutdown();
      throw e;
    }
    return new KafkaNode(server, bootstrap, dir, Duration.ofNanos(System.nanoTime() - t0));
  }

  private static void awaitReady(String bootstrap) throws InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      Exception last = null;
      while (System.nanoTime() < deadline) {
        try {
          // each call waits up to 5 s for an answer: the loop polls the node, it does not spin
          if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          last = e;
        }
      }
      throw new IllegalStateException("The Kafka node at " + bootstrap + " did not answer within "
          + READY_TIMEOUT.toSeconds() + " s.", last);
    }
  }

  /** {@code 127.0.0.1:<port>} of the PLAINTEXT listener. */
  public String bootstrap() {
    return bootstrap;
  }

  /** The node's log directory. */
  public Path dir() {
    return dir;
  }

  /** How long the start took, up to the first answered admin request. */
  public Duration startTime() {
    return startTime;
  }

  /** An admin client of this node; the caller closes it. */
  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /** Creates a topic of {@code partitions} partitions, one replica, with {@code configs}. */
  public void createTopic(String topic, int partitions, Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
          .all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("Creating topic " + topic + " on " + bootstrap + " failed.", e);
    }
  }

  /** Stops the node and waits for it; its directory stays (the caller owns it). */
  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
  }
}
