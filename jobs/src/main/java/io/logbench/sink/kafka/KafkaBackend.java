package io.logbench.sink.kafka;

import io.logbench.config.ConfigNode;
import io.logbench.config.SecretRef;
import io.logbench.dataset.LineBatch;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.Capabilities;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka backend block: lines go to one topic as Avro {@link LogRecord} values keyed by stream,
 * with the line time as record timestamp and the run's id as header {@value #RUN_HEADER}, through
 * an idempotent producer ({@link #open}) or, with {@code exactly_once: true}, through Flink's
 * transactional {@link KafkaSink} ({@link #deliver}). Counts read only the run's records.
 *
 * <p>Keys: {@code kind} (kafka), {@code name} (default {@code kafka}), {@code bootstrap}
 * (required), {@code topic} (default {@value #DEFAULT_TOPIC}), {@code exactly_once} (default
 * false), {@code transactional_id_prefix} (default {@code logbench-<name>}), {@code properties}
 * (client properties passed through; secret ones, whose key contains {@code password}, {@code
 * jaas} or {@code secret}, must be given as {@code {env: NAME}} or {@code {file: PATH}}). The
 * common delivery keys ({@code delivery}, {@code in_flight}, {@code retry}, {@code thresholds},
 * {@code timeout}) are read by the delivery layer and accepted here; {@code query_timeout} bounds
 * one count pass over the topic.
 */
public final class KafkaBackend implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "kafka";
  public static final String DEFAULT_NAME = "kafka";
  public static final String DEFAULT_TOPIC = "logbench-lines";
  public static final BackendType TYPE = BackendType.of(KIND,
      List.of("bootstrap", "topic", "exactly_once", "transactional_id_prefix", "properties"), KafkaBackend::parse);

  /**
   * The record header that carries the run's id (UTF-8) on every record a run writes; counts and
   * replays of a run read only records whose header is the run's id.
   */
  public static final String RUN_HEADER = "logbench-run";

  /** The transaction timeout of the exactly-once sink: the broker's default maximum, 15 minutes. */
  public static final long DEFAULT_TRANSACTION_TIMEOUT_MS = 900_000L;

  /** Properties logbench sets itself; a run file may not override them. */
  static final Set<String> RESERVED =
      Set.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
          ProducerConfig.ACKS_CONFIG,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG);

  private final String name;
  private final String bootstrap;
  private final String topic;
  private final boolean exactlyOnce;
  private final String transactionalIdPrefix;
  /** Plain properties, in run-file order. */
  private final Map<String, String> properties;
  /** Secret properties, by reference only. */
  private final Map<String, SecretRef> secrets;
  /** How long one count pass over the topic may take ({@code query_timeout}). */
  private final Duration queryTimeout;

  private KafkaBackend(Builder b) {
    this.name = b.name;
    this.bootstrap = b.bootstrap;
    this.topic = b.topic;
    this.exactlyOnce = b.exactlyOnce;
    this.transactionalIdPrefix =
        b.transactionalIdPrefix != null ? b.transactionalIdPrefix : "logbench-" + b.name;
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(b.properties));
    this.secrets = Collections.unmodifiableMap(new LinkedHashMap<>(b.secrets));
    this.queryTimeout = b.queryTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Reads the keys of a {@code kind: kafka} backend block. */
  static KafkaBackend parse(ConfigNode block, CommonSettings common) {
    // bootstrap and client properties follow the rules of every Kafka connection of a run file
    KafkaConnection connection = KafkaConnection.parse(block);
    Builder b =
        builder()
            .name(common.name())
            .bootstrap(connection.bootstrap())
            .topic(block.string("topic", DEFAULT_TOPIC))
            .exactlyOnce(Boolean.parseBoolean(block.choice("exactly_once", "false", "true", "false")))
            .transactionalIdPrefix(block.string("transactional_id_prefix", null))
            .queryTimeout(common.queryTimeout());
    connection.properties().forEach(b::property);
    connection.secrets().forEach(b::secret);
    return b.build();
  }


  /** Whether a client property holds a secret (never logged, read from env or file). */
  static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.contains("password") || k.contains("jaas") || k.contains("secret");
  }

  @Override
  public String kind() {
    return KIND;
  }

  /** Counts back by record timestamp, the run's records only; ids are the records' sequence ids. */
  @Override
  public Capabilities capabilities() {
    return Capabilities.countable(Capabilities.LineIds.SEQUENCE).withRunFilter(true);
  }

  /** The headers of a record of run {@code runId}: its {@link #RUN_HEADER}, or none for null. */
  static List<Header> runHeaders(String runId) {
    return runId == null ? null
        : List.of(new RecordHeader(RUN_HEADER, runId.getBytes(StandardCharsets.UTF_8)));
  }

  /** Whether {@code record} was written by run {@code runId} (every record, for null). */
  static boolean ofRun(ConsumerRecord<?, ?> record, byte[] runId) {
    if (runId == null) {
      return true;
    }
    Header h = record.headers().lastHeader(RUN_HEADER);
    return h != null && Arrays.equals(h.value(), runId);
  }

  @Override
  public String name() {
    return name;
  }

  public String bootstrap() {
    return bootstrap;
  }

  public String topic() {
    return topic;
  }

  public boolean exactlyOnce() {
    return exactlyOnce;
  }

  public String transactionalIdPrefix() {
    return transactionalIdPrefix;
  }

  /** The plain (not secret) client properties of the run file. */
  public Map<String, String> properties() {
    return properties;
  }

  /**
   * The topic must exist (a producer would otherwise wait for its metadata and retry for ever),
   * and its time retention must keep the run's oldest line: Kafka deletes whole segments whose
   * newest record timestamp is older than {@code retention.ms}, and the lines carry their own time.
   * Records of other runs in the run's time range are warned about too ({@link
   * Preflight#otherRuns}, one pass over the topic).
   */
  @Override
  public List<String> preflight(Preflight before) throws java.io.IOException {
    List<String> warnings = new java.util.ArrayList<>(topicWarnings(before.oldestLineMillis(), before.nowMillis()));
    warnings.addAll(before.otherRuns(this));
    return warnings;
  }

  private List<String> topicWarnings(long oldestLineMillis, long nowMillis) throws java.io.IOException {
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(clientProperties())) {
      org.apache.kafka.common.config.ConfigResource resource =
          new org.apache.kafka.common.config.ConfigResource(
              org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
      org.apache.kafka.clients.admin.Config config =
          admin.describeConfigs(java.util.List.of(resource)).all()
              .get(30, java.util.concurrent.TimeUnit.SECONDS).get(resource);
      long ms = KafkaTopics.retentionMs(config);
      long age = nowMillis - oldestLineMillis;
      if (KafkaTopics.deletes(ms, oldestLineMillis, nowMillis)) {
        return java.util.List.of("Backend '" + name + "': Kafka topic " + topic
            + " keeps records for retention.ms=" + ms
            + ", but the run's oldest line is " + java.time.Duration.ofMillis(age).toDays()
            + " days old: the broker will delete those records at its next retention check."
            + " Set retention.ms=-1 on the topic, or use timestamps now or compressed.");
      }
      return java.util.List.of();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
        throw new java.io.IOException("Kafka topic " + topic + " does not exist at " + bootstrap
            + "; create it (with retention.ms=-1 for original timestamps) or let the broker create topics.");
      }
      throw new java.io.IOException("Kafka at " + bootstrap + " did not describe topic " + topic + ": "
          + e.getCause().getMessage(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new java.io.IOException("Kafka at " + bootstrap + " did not answer within 30 s.", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.IOException("Interrupted while asking Kafka about topic " + topic + ".", e);
    }
  }

  /** Bootstrap servers plus the run file's properties, secrets read now: for any client. */
  public Properties clientProperties() {
    Properties p = new Properties();
    p.putAll(properties);
    for (Map.Entry<String, SecretRef> s : secrets.entrySet()) {
      p.put(s.getKey(), s.getValue().resolve());
    }
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }

  /** Client properties plus what the idempotent producer needs (idempotence, acks=all, bytes). */
  public Properties producerProperties() {
    Properties p = clientProperties();
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  /**
   * Opens an idempotent-producer sender. An {@code exactly_once} backend has none: its lines go
   * through {@link #deliver}, because a transaction per batch outside Flink's checkpoints
   * would still write a batch twice when a task restarts.
   */
  @Override
  public KafkaSender open(RunContext run) {
    if (exactlyOnce) {
      throw new IllegalStateException(
          "Backend " + name + " is exactly_once, so it writes through Flink's transactional KafkaSink"
              + " (KafkaBackend.deliver), not a BatchSender.");
    }
    return new KafkaSender(new KafkaProducer<>(producerProperties()), topic, run.streams(), run.runId());
  }

  /**
   * A reader counting the run's committed records in the topic per window by record timestamp;
   * each count is one pass over the topic, which fails after {@code query_timeout}.
   */
  @Override
  public KafkaCountReader openCounter(RunContext run) {
    return KafkaCountReader.of(this, queryTimeout, run.runId());
  }

  /** Searches by one pass over the run's records, by record timestamp and key. */
  @Override
  public KafkaSearch openSearch(RunContext run) {
    return new KafkaSearch(KafkaCounter.of(this, queryTimeout, run.runId()), topic, run.streams());
  }

  /** How long one count pass over the topic may take ({@code query_timeout}). */
  public Duration queryTimeout() {
    return queryTimeout;
  }

  /**
   * Flink's transactional sink of {@link LogRecord}s to this topic: records become visible to
   * {@code read_committed} consumers when the checkpoint that covers them completes. The sink
   * serializes one element to one record, so batches are first expanded into records ({@link
   * #deliver}); the producer properties, secrets included, travel in the job graph. Every record
   * carries the header {@link #RUN_HEADER} = {@code runId} (none when null).
   */
  public KafkaSink<LogRecord> exactlyOnceSink(String runId) {
    Properties p = clientProperties();
    p.remove(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    // KafkaSink asks for one hour, which a broker with the default transaction.max.timeout.ms
    // (15 minutes) refuses; a run file can still set its own.
    p.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, String.valueOf(DEFAULT_TRANSACTION_TIMEOUT_MS));
    return KafkaSink.<LogRecord>builder()
        .setBootstrapServers(bootstrap)
        .setKafkaProducerConfig(p)
        .setRecordSerializer(new LogRecordSerializationSchema(topic, runId))
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(transactionalIdPrefix)
        .build();
  }

  /**
   * Idempotent sends through {@link #open}, or with {@code exactly_once} Flink's transactional
   * sink ({@link #exactlyOnceSink}) and an outcome per batch once the checkpoint whose transaction
   * holds it is committed ({@link ExactlyOnceDelivery}).
   */
  @Override
  public DataStream<BatchOutcome> deliver(DataStream<LineBatch> batches, DeliveryContext context) {
    if (!exactlyOnce) {
      return context.requests().apply(this, context, batches);
    }
    return ExactlyOnceDelivery.wire(this, batches, context);
  }

  /**
   * With {@code exactly_once}, batches are acknowledged when a checkpoint commits them, so the
   * source holds its end of input until the run's last batches are committed and reported.
   */
  @Override
  public boolean endsAfterCheckpoint() {
    return exactlyOnce;
  }

  @Override
  public String toString() {
    Map<String, Object> shown = new LinkedHashMap<>(properties);
    shown.putAll(secrets);
    return "KafkaBackend{name=" + name + ", bootstrap=" + bootstrap + ", topic=" + topic
        + ", exactlyOnce=" + exactlyOnce + ", transactionalIdPrefix=" + transactionalIdPrefix
        + ", properties=" + shown + "}";
  }

  /** Builds a {@link KafkaBackend}; defaults as for a run file. */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private String bootstrap;
    private String topic = DEFAULT_TOPIC;
    private boolean exactlyOnce;
    private String transactionalIdPrefix;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final Map<String, SecretRef> secrets = new LinkedHashMap<>();
    private Duration queryTimeout = CommonSettings.DEFAULT_QUERY_TIMEOUT;

    private Builder() {}

    /** How long one count pass over the topic may take (default 60 s). */
    public Builder queryTimeout(Duration queryTimeout) {
      this.queryTimeout = Objects.requireNonNull(queryTimeout, "queryTimeout");
      return this;
    }

    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    public Builder bootstrap(String bootstrap) {
      this.bootstrap = bootstrap;
      return this;
    }

    public Builder topic(String topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    public Builder exactlyOnce(boolean exactlyOnce) {
      this.exactlyOnce = exactlyOnce;
      return this;
    }

    /** Null for the default {@code logbench-<name>}. */
    public Builder transactionalIdPrefix(String prefix) {
      this.transactionalIdPrefix = prefix;
      return this;
    }

    public Builder property(String key, String value) {
      properties.put(key, value);
      return this;
    }

    Builder secret(String key, SecretRef ref) {
      secrets.put(key, ref);
      return this;
    }

    public KafkaBackend build() {
      if (bootstrap == null || bootstrap.isBlank()) {
        throw new IllegalArgumentException("A Kafka backend needs bootstrap servers.");
      }
      if (topic.isBlank()) {
        throw new IllegalArgumentException("A Kafka backend needs a topic name.");
      }
      for (String key : properties.keySet()) {
        if (RESERVED.contains(key)) {
          throw new IllegalArgumentException("The property " + key + " is set by logbench and cannot be overridden.");
        }
        if (isSecret(key)) {
          throw new IllegalArgumentException(
              "The property " + key + " holds a secret, so it must come from an environment variable or a file.");
        }
      }
      return new KafkaBackend(this);
    }
  }

  /**
   * The size of the topic's partitions in the brokers' log directories ({@code
   * Admin.describeLogDirs}), every replica: the whole topic, this run's records and any other's.
   */
  @Override
  public java.util.Optional<io.logbench.sink.Footprint> footprint(RunContext run) throws java.io.IOException {
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(clientProperties())) {
      java.util.List<Integer> brokers = admin.describeCluster().nodes().get(30, java.util.concurrent.TimeUnit.SECONDS)
          .stream().map(org.apache.kafka.common.Node::id).toList();
      var dirs = admin.describeLogDirs(brokers).allDescriptions().get(30, java.util.concurrent.TimeUnit.SECONDS);
      long bytes = 0;
      int replicas = 0;
      for (var byDir : dirs.values()) {
        for (var d : byDir.values()) {
          for (var e : d.replicaInfos().entrySet()) {
            if (e.getKey().topic().equals(topic)) {
              bytes += e.getValue().size();
              replicas++;
            }
          }
        }
      }
      return java.util.Optional.of(new io.logbench.sink.Footprint(bytes, "Kafka topic " + topic
          + ": log size of its " + replicas + " partition replica(s) (describeLogDirs), the whole topic"));
    } catch (java.util.concurrent.ExecutionException e) {
      throw new java.io.IOException("Kafka at " + bootstrap + " did not describe its log directories: "
          + e.getCause().getMessage(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new java.io.IOException("Kafka at " + bootstrap + " did not describe its log directories within 30 s.", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.IOException("Interrupted while asking Kafka for the size of topic " + topic + ".", e);
    }
  }
}
