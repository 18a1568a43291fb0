package io.logbench.ledger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.formats.avro.AvroSerializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The ledger's Kafka output, and the reader {@code verify --ledger-kafka} uses in its place of the
 * run directory's files.
 *
 * <ul>
 *   <li>{@code topic}: every ledger row as an Avro {@code io.logbench.schemas.LedgerEntry} (field
 *       {@code run}: the run id), keyed by {@code <run id>/<backend>/<window start ms>}, so the
 *       newest record of a key is the current row and a compacted topic keeps exactly the final
 *       ledger of every run.
 *   <li>{@code <topic>.runs} ({@link #runsTopic}): the run's {@code run.json}, its UTF-8 JSON
 *       bytes as generate writes the file, keyed by the run id: once when the run starts, again
 *       when generate ends (then with {@code finishedMillis}). The file itself rather than an Avro
 *       record, so whatever verify and the report read from run.json, now or later, comes through
 *       Kafka unchanged; a compacted topic keeps the last of each run.
 * </ul>
 *
 * @param bootstrap Kafka bootstrap servers
 * @param topic the ledger topic
 */
public record LedgerKafka(String bootstrap, String topic) implements Serializable {

  /** The default ledger topic. */
  public static final String DEFAULT_TOPIC = "logbench-ledger";

  /** The suffix of the runs topic beside the ledger topic. */
  public static final String RUNS_SUFFIX = ".runs";

  /** How long Kafka may go without answering a read or write before it is an error. */
  static final Duration DEADLINE = Duration.ofSeconds(30);

  /**
   * {@code BOOTSTRAP[/TOPIC]} as {@code verify --ledger-kafka} takes it (topic {@value
   * #DEFAULT_TOPIC} when none is given).
   *
   * @throws IllegalArgumentException naming the value when it has no bootstrap or an empty topic
   */
  public static LedgerKafka parse(String value) {
    int slash = value == null ? -1 : value.indexOf('/');
    String bootstrap = slash < 0 ? value : value.substring(0, slash);
    String topic = slash < 0 ? DEFAULT_TOPIC : value.substring(slash + 1);
    if (bootstrap == null || bootstrap.isBlank() || topic.isBlank() || topic.contains("/")) {
      throw new IllegalArgumentException("'" + value + "' is not a ledger topic; expected BOOTSTRAP or"
          + " BOOTSTRAP/TOPIC, such as 127.0.0.1:9092/logbench-ledger.");
    }
    return new LedgerKafka(bootstrap, topic);
  }

  /** The topic of the runs' {@code run.json} records, beside the ledger topic. */
  public String runsTopic() {
    return topic + RUNS_SUFFIX;
  }

  /** The record key of a ledger row of run {@code run}. */
  static byte[] key(String run, String backend, long windowStartMillis) {
    return (run + "/" + backend + "/" + windowStartMillis).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Adds a sink of {@code rows} of the run with id {@code runId} to the topic (at-least-once;
   * upserts make repeats harmless).
   */
  public void sink(DataStream<LedgerEntry> rows, String runId, String uid) {
    Properties props = new Properties();
    props.setProperty("enable.idempotence", "true");
    KafkaSink<io.logbench.schemas.LedgerEntry> sink =
        KafkaSink.<io.logbench.schemas.LedgerEntry>builder()
            .setBootstrapServers(bootstrap)
            .setKafkaProducerConfig(props)
            .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
            .setRecordSerializer(new Records(topic))
            .build();
    rows.map(new ToAvro(runId))
        .returns(io.logbench.schemas.LedgerEntry.class)
        .uid("ledger-avro-" + uid)
        .name("ledger to avro " + uid)
        .sinkTo(sink)
        .uid("ledger-kafka-" + uid)
        .name("ledger to kafka " + uid);
  }

  /**
   * A row's Kafka record: its key, its Avro value, and no timestamp of its own (the producer's
   * time). Not the stream element's timestamp, which the builder's schema would use: the rows a
   * drained job's final watermark brings out carry {@code Long.MAX_VALUE}, which brokers refuse.
   */
  static final class Records implements KafkaRecordSerializationSchema<io.logbench.schemas.LedgerEntry> {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private final AvroSerializationSchema<io.logbench.schemas.LedgerEntry> value =
        AvroSerializationSchema.forSpecific(io.logbench.schemas.LedgerEntry.class);

    Records(String topic) {
      this.topic = topic;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext)
        throws Exception {
      value.open(context);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(io.logbench.schemas.LedgerEntry e, KafkaSinkContext context,
        Long timestamp) {
      return new ProducerRecord<>(topic, null, null, key(e.getRun(), e.getBackend(), e.getWindowStartMillis()),
          value.serialize(e));
    }
  }

  /** A ledger row as its Avro record. */
  static final class ToAvro implements MapFunction<LedgerEntry, io.logbench.schemas.LedgerEntry> {
    private static final long serialVersionUID = 1L;
    private final String run;

    ToAvro(String run) {
      this.run = run;
    }

    @Override
    public io.logbench.schemas.LedgerEntry map(LedgerEntry e) {
      return avro(run, e);
    }
  }

  static io.logbench.schemas.LedgerEntry avro(String run, LedgerEntry e) {
    return io.logbench.schemas.LedgerEntry.newBuilder()
        .setBackend(e.backend())
        .setRun(run)
        .setWindowStartMillis(e.windowStartMillis())
        .setWindowEndMillis(e.windowEndMillis())
        .setExpected(e.expected())
        .setSent(e.sent())
        .setAcked(e.acked())
        .setRejected(new HashMap<>(e.rejected()))
        .setUpdatedMillis(System.currentTimeMillis())
        .build();
  }

  /**
   * Creates the ledger topic and {@link #runsTopic} where they do not exist yet, compacted (the
   * newest record of each key kept, however old) with one partition; topics that exist are left
   * as they are. Brokers often refuse to create topics on demand, and the runs topic is new to
   * anyone who created the ledger topic by hand.
   */
  public void ensureTopics() throws IOException {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis()))) {
      Set<String> have = admin.listTopics().names().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      List<NewTopic> create = new ArrayList<>();
      for (String t : List.of(topic, runsTopic())) {
        if (!have.contains(t)) {
          create.add(new NewTopic(t, Optional.of(1), Optional.empty())
              .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
        }
      }
      if (!create.isEmpty()) {
        admin.createTopics(create).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException) {
        return; // another generate created it meanwhile
      }
      throw new IOException("Creating topic " + topic + " or " + runsTopic() + " at " + bootstrap + " failed: "
          + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException | org.apache.kafka.common.KafkaException e) {
      throw new IOException("Kafka at " + bootstrap + " did not answer within " + DEADLINE.toSeconds()
          + " s while listing its topics: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while creating the ledger topics at " + bootstrap + ".", e);
    }
  }

  /**
   * Writes {@code rows} of run {@code runId} to the ledger topic from the client (rows generate
   * adds after its job, such as the unsent windows of a cancelled run).
   */
  public void writeRows(String runId, Collection<LedgerEntry> rows) throws IOException {
    SpecificDatumWriter<io.logbench.schemas.LedgerEntry> writer =
        new SpecificDatumWriter<>(io.logbench.schemas.LedgerEntry.class);
    Map<byte[], byte[]> records = new LinkedHashMap<>();
    for (LedgerEntry e : rows) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
      writer.write(avro(runId, e), encoder);
      encoder.flush();
      records.put(key(runId, e.backend(), e.windowStartMillis()), bytes.toByteArray());
    }
    send(topic, records, "ledger rows of run " + runId);
  }

  /** Makes {@code runJson} (run.json's bytes) the current record of run {@code runId} in {@link #runsTopic}. */
  public void writeRun(String runId, byte[] runJson) throws IOException {
    Map<byte[], byte[]> records = new LinkedHashMap<>();
    records.put(runId.getBytes(StandardCharsets.UTF_8), runJson);
    send(runsTopic(), records, "run.json of run " + runId);
  }

  private void send(String to, Map<byte[], byte[]> records, String what) throws IOException {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(DEADLINE.toMillis()));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<?>> sent = new ArrayList<>();
      records.forEach((k, v) -> sent.add(producer.send(new ProducerRecord<>(to, k, v))));
      for (Future<?> f : sent) {
        f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (ExecutionException e) {
      throw new IOException("Writing the " + what + " to topic " + to + " at " + bootstrap + " failed: "
          + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException | org.apache.kafka.common.errors.TimeoutException e) {
      throw new IOException("Kafka at " + bootstrap + " did not take the " + what + " (topic " + to + ") within "
          + DEADLINE.toSeconds() + " s.", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while writing the " + what + " to topic " + to + ".", e);
    }
  }

  /**
   * A run as the topics hold it.
   *
   * @param runId the run's id
   * @param runJson its run.json, as generate last wrote it
   * @param rows the current row of each of its (backend, window), sorted by backend, then window start
   */
  public record Run(String runId, byte[] runJson, List<LedgerEntry> rows) {}

  /**
   * The run ids {@link #runsTopic} holds, in the order of their last record (the newest last).
   *
   * @throws IOException when the runs topic does not exist or Kafka does not answer
   */
  public List<String> runIds() throws IOException {
    LinkedHashMap<String, Boolean> ids = new LinkedHashMap<>();
    if (!readAll(runsTopic(), (k, v) -> {
      String id = new String(k, StandardCharsets.UTF_8);
      ids.remove(id);
      if (v != null) {
        ids.put(id, true);
      }
    })) {
      throw noTopic(runsTopic(), "the runs' run.json records");
    }
    return new ArrayList<>(ids.keySet());
  }

  /**
   * Run {@code runId}: its run.json (from {@link #runsTopic}) and its ledger rows (from the ledger
   * topic), read to the topics' ends.
   *
   * @throws IOException with a full sentence when a topic does not exist, the run is not in it,
   *     or Kafka does not answer
   */
  public Run read(String runId) throws IOException {
    byte[] key = runId.getBytes(StandardCharsets.UTF_8);
    byte[][] runJson = new byte[1][];
    LinkedHashSet<String> others = new LinkedHashSet<>();
    if (!readAll(runsTopic(), (k, v) -> {
      if (Arrays.equals(k, key)) {
        runJson[0] = v;
      } else if (k != null) {
        String id = new String(k, StandardCharsets.UTF_8);
        others.remove(id); // newest last
        if (v != null) {
          others.add(id);
        }
      }
    })) {
      throw noTopic(runsTopic(), "the runs' run.json records");
    }
    if (runJson[0] == null) {
      List<String> all = new ArrayList<>(others);
      List<String> last = all.subList(Math.max(0, all.size() - 5), all.size());
      throw new IOException("Topic " + runsTopic() + " at " + bootstrap + " holds no run " + runId + (others.isEmpty()
          ? "; it holds no run at all" : "; its newest runs are " + String.join(", ", last)) + ". Expected the run id"
          + " generate printed (run.json's runId) of a run with run.ledger_kafka topic " + topic + ".");
    }
    SpecificDatumReader<io.logbench.schemas.LedgerEntry> reader =
        new SpecificDatumReader<>(io.logbench.schemas.LedgerEntry.class);
    TreeMap<LedgerEntry.Key, LedgerEntry> rows = new TreeMap<>();
    byte[] prefix = (runId + "/").getBytes(StandardCharsets.UTF_8);
    IOException[] bad = new IOException[1];
    if (!readAll(topic, (k, v) -> {
      if (k == null || v == null || bad[0] != null || !startsWith(k, prefix)) {
        return;
      }
      try {
        io.logbench.schemas.LedgerEntry a = reader.read(null, DecoderFactory.get().binaryDecoder(v, null));
        if (runId.equals(a.getRun())) {
          LedgerEntry e = new LedgerEntry(a.getBackend(), a.getWindowStartMillis(), a.getWindowEndMillis(),
              a.getExpected(), a.getSent(), a.getAcked(), a.getRejected());
          rows.put(e.key(), e);
        }
      } catch (IOException | RuntimeException ex) {
        bad[0] = new IOException("Record " + new String(k, StandardCharsets.UTF_8) + " of topic " + topic
            + " is not an Avro io.logbench.schemas.LedgerEntry: " + ex.getMessage(), ex);
      }
    })) {
      throw noTopic(topic, "the ledger rows");
    }
    if (bad[0] != null) {
      throw bad[0];
    }
    return new Run(runId, runJson[0], new ArrayList<>(rows.values()));
  }

  private IOException noTopic(String name, String what) {
    return new IOException("Kafka at " + bootstrap + " has no topic " + name + " (" + what + "): no generate with"
        + " run.ledger_kafka topic " + topic + " wrote there; expected the bootstrap and topic of the run file's"
        + " run.ledger_kafka.");
  }

  private static boolean startsWith(byte[] a, byte[] prefix) {
    return a.length >= prefix.length && Arrays.equals(a, 0, prefix.length, prefix, 0, prefix.length);
  }

  /**
   * Hands every record of {@code name} to {@code each}, from the beginning to the end offsets the
   * read started with, partition by partition in offset order (a key's records are in one
   * partition, so its last is its newest); false when the topic does not exist.
   */
  private boolean readAll(String name, BiConsumer<byte[], byte[]> each) throws IOException {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(DEADLINE.toMillis()));
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<PartitionInfo> infos = consumer.listTopics(DEADLINE).get(name);
      if (infos == null || infos.isEmpty()) {
        return false;
      }
      List<TopicPartition> parts = new ArrayList<>();
      infos.forEach(i -> parts.add(new TopicPartition(name, i.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts, DEADLINE);
      long quietSince = System.nanoTime();
      while (!reached(consumer, end)) {
        var records = consumer.poll(Duration.ofMillis(200));
        if (!records.isEmpty()) {
          quietSince = System.nanoTime();
        } else if (System.nanoTime() - quietSince > DEADLINE.toNanos()) {
          throw new IOException("Reading topic " + name + " at " + bootstrap + " got no record for "
              + DEADLINE.toSeconds() + " s before its end.");
        }
        for (ConsumerRecord<byte[], byte[]> r : records) {
          each.accept(r.key(), r.value());
        }
      }
      return true;
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new IOException("Kafka at " + bootstrap + " did not answer within " + DEADLINE.toSeconds()
          + " s while reading topic " + name + ": " + e.getMessage(), e);
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey(), DEADLINE) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
