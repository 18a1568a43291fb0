package io.logbench.publish;

import io.logbench.sink.kafka.KafkaConnection;
import io.logbench.sink.kafka.KafkaTopics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The topic {@code publish} writes to and its manifest topic, through Kafka's admin client: checks
 * them before anything is written ({@link #prepare}), creates what is missing, reads the offsets
 * the lines end at, and reads the lines back to count them ({@link #check}).
 *
 * <p>A topic that would lose lines is refused with what to do: a time retention shorter than the
 * lines' age (they carry their own time, May 2021 for nginx-month), a size retention, compaction
 * (lines of one stream share a key), or a limit on future timestamps the lines exceed.
 */
public final class PublishTarget implements AutoCloseable {

  /** How long an admin request may take. */
  static final Duration DEADLINE = Duration.ofSeconds(30);

  /** The pause before asking again after a retriable answer (metadata not yet everywhere). */
  private static final Duration RETRY_BACKOFF = Duration.ofMillis(200);

  /** The largest {@code message.timestamp.after.max.ms}: no limit on timestamps ahead of the broker's clock. */
  static final String NO_LIMIT = Long.toString(Long.MAX_VALUE);

  private final KafkaConnection kafka;
  private final String topic;
  private final Admin admin;

  public PublishTarget(KafkaConnection kafka, String topic) {
    this.kafka = kafka;
    this.topic = topic;
    this.admin = Admin.create(kafka.clientProperties());
  }

  /**
   * What {@link #prepare} found and did: the partition count, the offsets the new lines start at,
   * and one sentence per thing it did (created a topic, deleted an earlier dataset).
   */
  public record Prepared(int partitions, Map<TopicPartition, Long> startOffsets, List<String> notes) {}

  /**
   * Checks and prepares both topics for lines stamped {@code [oldestMillis, newestMillis]}.
   *
   * @param newPartitions partitions of the lines topic if it has to be created
   * @param overwrite whether an earlier dataset (or records without a manifest) may be deleted
   * @throws IllegalStateException naming what is wrong and what to do
   */
  public Prepared prepare(int newPartitions, long oldestMillis, long newestMillis, boolean overwrite) {
    List<String> notes = new ArrayList<>();
    String manifests = ManifestStore.manifestTopic(topic);
    long now = System.currentTimeMillis();

    if (describe(manifests).isEmpty()) {
      create(new NewTopic(manifests, Optional.of(1), Optional.empty())
          .configs(Map.of("cleanup.policy", "compact")));
      notes.add("created topic " + manifests + " (1 partition, cleanup.policy=compact) for the manifest");
    } else {
      String policy = configs(manifests).get("cleanup.policy").value();
      if (!policy.contains("compact")) {
        throw new IllegalStateException("Kafka topic " + manifests + " has cleanup.policy=" + policy
            + ", so the broker would delete the manifest with time; set cleanup.policy=compact on it ("
            + alter(manifests, "cleanup.policy=compact") + ") or delete it and let publish create it.");
      }
    }

    Optional<byte[]> existing = ManifestStore.readRaw(kafka, topic);
    if (existing.isPresent() && !overwrite) {
      throw new IllegalStateException("Kafka topic " + topic + " already holds a published dataset ("
          + describeManifest(existing.get()) + "); publish --overwrite replaces it, or choose another --topic.");
    }

    Optional<TopicDescription> lines = describe(topic);
    int partitions;
    if (lines.isEmpty()) {
      Map<String, String> configs = new LinkedHashMap<>();
      configs.put("retention.ms", "-1");
      configs.put("retention.bytes", "-1");
      configs.put("cleanup.policy", "delete");
      if (newestMillis > now) {
        configs.put("message.timestamp.after.max.ms", NO_LIMIT);
      }
      create(new NewTopic(topic, Optional.of(newPartitions), Optional.empty()).configs(configs));
      partitions = newPartitions;
      notes.add("created topic " + topic + " (" + newPartitions + " partitions, " + String.join(", ",
          configs.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList())
          + "): its records carry the lines' own times, from " + Instant.ofEpochMilli(oldestMillis)
          + ", which a time retention would delete");
    } else {
      partitions = lines.get().partitions().size();
      checkKeeps(configs(topic), oldestMillis, newestMillis, now);
    }

    Map<TopicPartition, Long> earliest = offsets(partitions, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED);
    Map<TopicPartition, Long> latest = offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
    long held = 0;
    for (TopicPartition tp : latest.keySet()) {
      held += latest.get(tp) - earliest.get(tp);
    }
    if (held > 0 && existing.isEmpty() && !overwrite) {
      throw new IllegalStateException("Kafka topic " + topic + " holds records (offsets " + held
          + ") but no manifest: an interrupted publish, or another writer's records. publish --overwrite deletes"
          + " them first, or choose another --topic.");
    }
    if (overwrite) {
      if (existing.isPresent()) {
        ManifestStore.delete(kafka, topic);
        notes.add("deleted the manifest of the earlier dataset");
      }
      if (held > 0) {
        Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
        latest.forEach((tp, end) -> delete.put(tp, RecordsToDelete.beforeOffset(end)));
        await(admin.deleteRecords(delete).all(), "delete the records of topic " + topic);
        notes.add("deleted the earlier records of topic " + topic + " (offsets " + held + ")");
      }
    }
    return new Prepared(partitions, latest, notes);
  }

  /** Refuses a topic configured to lose some of the lines, saying what to change. */
  private void checkKeeps(Config config, long oldestMillis, long newestMillis, long now) {
    String policy = config.get("cleanup.policy").value();
    if (policy.contains("compact")) {
      throw new IllegalStateException("Kafka topic " + topic + " has cleanup.policy=" + policy
          + ": compaction keeps one record per key, and all lines of a stream share its key. Set "
          + alter(topic, "cleanup.policy=delete") + ", or publish to a new topic, which publish creates.");
    }
    long retention = KafkaTopics.retentionMs(config);
    if (KafkaTopics.deletes(retention, oldestMillis, now)) {
      throw new IllegalStateException("Kafka topic " + topic + " keeps records for retention.ms=" + retention
          + ", but the oldest line is " + Duration.ofMillis(now - oldestMillis).toDays()
          + " days old (the records carry the lines' own times): the broker would delete them at its next"
          + " retention check. Set retention.ms=-1 (" + alter(topic, "retention.ms=-1")
          + "), or publish to a new topic, which publish creates with retention.ms=-1.");
    }
    long bytes = KafkaTopics.longValue(config, "retention.bytes", -1);
    if (bytes >= 0) {
      throw new IllegalStateException("Kafka topic " + topic + " keeps at most retention.bytes=" + bytes
          + " a partition, so the broker would delete the oldest lines once a partition grows past it. Set"
          + " retention.bytes=-1 (" + alter(topic, "retention.bytes=-1") + ").");
    }
    long ahead = KafkaTopics.longValue(config, "message.timestamp.after.max.ms", Long.MAX_VALUE);
    if (newestMillis - now > ahead) {
      throw new IllegalStateException("Kafka topic " + topic + " refuses records more than"
          + " message.timestamp.after.max.ms=" + ahead + " ms ahead of the broker's clock, and the newest line is"
          + " stamped " + Instant.ofEpochMilli(newestMillis) + ". Set message.timestamp.after.max.ms=" + NO_LIMIT
          + " (" + alter(topic, "message.timestamp.after.max.ms=" + NO_LIMIT) + ").");
    }
  }

  private String alter(String name, String config) {
    return "kafka-configs.sh --bootstrap-server " + kafka.bootstrap() + " --alter --entity-type topics"
        + " --entity-name " + name + " --add-config " + config;
  }

  private static String describeManifest(byte[] json) {
    try {
      Manifest m = Manifest.parse(json, "manifest");
      return m.dataset().path("kind").asText() + " seed " + m.dataset().path("seed").asText() + ", "
          + m.lines() + " lines from " + Instant.ofEpochMilli(m.firstMillis()) + ", published at " + m.publishedAt();
    } catch (RuntimeException e) {
      return "a manifest this logbench cannot read";
    }
  }

  /**
   * Committed end offsets of every partition: where the lines end once publish's transactions
   * committed. The job ends once its last checkpoint completed, but the broker may still be writing
   * that checkpoint's commit markers: this waits, up to {@code wait}, until no transaction is open
   * in any partition (the last stable offset has reached the log's end), and returns the offsets
   * as they are then. A transaction still open after {@code wait} leaves its records out, and the
   * read-back check then says how many lines are missing.
   */
  public Map<TopicPartition, Long> committedEndOffsets(int partitions, Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Map<TopicPartition, Long> committed = offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
      Map<TopicPartition, Long> written = offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
      if (committed.equals(written) || System.nanoTime() > deadline) {
        return committed;
      }
      // the broker answers these in milliseconds; markers land within a request or two
      Thread.sleep(100);
    }
  }

  /** Offsets at the end of every partition, committed or not: how far the writers have come. */
  public long writtenSince(Map<TopicPartition, Long> start) {
    Map<TopicPartition, Long> now = offsets(start.size(), OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
    long n = 0;
    for (Map.Entry<TopicPartition, Long> e : start.entrySet()) {
      n += now.get(e.getKey()) - e.getValue();
    }
    return n;
  }

  /** What {@link #check} read back. */
  public record Check(long records, long outOfRange, long outOfOrder, long seqSum, long seqSquareSum) {

    /** Whether the records are exactly the lines {@code [first, first + lines)}, each partition in order. */
    public boolean exactly(long first, long lines) {
      return records == lines && outOfRange == 0 && outOfOrder == 0
          && seqSum == sumOf(first, lines, false) && seqSquareSum == sumOf(first, lines, true);
    }

    /** Sum of {@code seq} (or of its square) over {@code [first, first + lines)}, modulo 2^64 as the check adds. */
    static long sumOf(long first, long lines, boolean squares) {
      long s = 0;
      for (long i = first; i < first + lines; i++) {
        s += squares ? i * i : i;
      }
      return s;
    }
  }

  /**
   * Reads the committed records of {@code [start, end)} of every partition back (sequence ids
   * only): how many there are, whether each is within {@code [first, first + lines)} and each
   * partition is in sequence order, and the sums of the ids and of their squares (a line twice and
   * another missing would change them).
   */
  public Check check(Map<TopicPartition, Long> start, Map<TopicPartition, Long> end, long first, long lines) {
    Properties p = kafka.clientProperties();
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    long records = 0;
    long outOfRange = 0;
    long outOfOrder = 0;
    long sum = 0;
    long squares = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = new ArrayList<>(start.keySet());
      consumer.assign(parts);
      start.forEach(consumer::seek);
      Map<TopicPartition, Long> last = new HashMap<>();
      List<TopicPartition> open = new ArrayList<>(parts);
      long quiet = System.nanoTime();
      while (!open.isEmpty()) {
        boolean any = false;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (r.offset() >= end.get(tp)) {
            continue;
          }
          any = true;
          long seq = zigZagLong(r.value());
          records++;
          if (seq < first || seq >= first + lines) {
            outOfRange++;
          }
          Long before = last.put(tp, seq);
          if (before != null && seq <= before) {
            outOfOrder++;
          }
          sum += seq;
          squares += seq * seq;
        }
        open.removeIf(tp -> consumer.position(tp) >= end.get(tp));
        if (any) {
          quiet = System.nanoTime();
        } else if (System.nanoTime() - quiet > DEADLINE.toNanos()) {
          throw new IllegalStateException("Reading topic " + topic + " back stalled for " + DEADLINE.toSeconds()
              + " s before the end offsets of partitions " + open + ".");
        }
      }
    }
    return new Check(records, outOfRange, outOfOrder, sum, squares);
  }

  /** The first field of a {@code LogRecord} value: its seq, an Avro (zig-zag varint) long. */
  static long zigZagLong(byte[] value) {
    long n = 0;
    int shift = 0;
    for (int i = 0; i < value.length && i < 10; i++) {
      int b = value[i] & 0xff;
      n |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (n >>> 1) ^ -(n & 1);
      }
      shift += 7;
    }
    throw new IllegalStateException("A record of the topic does not start with an Avro long: not a LogRecord.");
  }

  private Optional<TopicDescription> describe(String name) {
    try {
      return Optional.of(admin.describeTopics(List.of(name)).topicNameValues().get(name)
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw failed("describe topic " + name, e);
    } catch (TimeoutException e) {
      throw timedOut("describe topic " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while describing topic " + name + ".", e);
    }
  }

  private Config configs(String name) {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, name);
    return await(admin.describeConfigs(List.of(r)).all(), "describe the configuration of topic " + name).get(r);
  }

  private void create(NewTopic t) {
    await(admin.createTopics(List.of(t)).all(), "create topic " + t.name());
  }

  private Map<TopicPartition, Long> offsets(int partitions, OffsetSpec spec, IsolationLevel isolation) {
    Map<TopicPartition, OffsetSpec> ask = new LinkedHashMap<>();
    for (int p = 0; p < partitions; p++) {
      ask.put(new TopicPartition(topic, p), spec);
    }
    String what = "list the offsets of topic " + topic;
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    Map<TopicPartition, org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo> answers;
    while (true) {
      try {
        answers = await(admin.listOffsets(ask, new ListOffsetsOptions(isolation)).all(), what);
        break;
      } catch (IllegalStateException e) {
        // a topic created a moment ago may not have reached every broker's metadata yet
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.RetriableException)
            || System.nanoTime() + RETRY_BACKOFF.toNanos() > deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(RETRY_BACKOFF.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while trying to " + what + ".", e);
      }
    }
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    for (TopicPartition tp : ask.keySet()) {
      out.put(tp, answers.get(tp).offset());
    }
    return out;
  }

  private <T> T await(org.apache.kafka.common.KafkaFuture<T> future, String what) {
    try {
      return future.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw failed(what, e);
    } catch (TimeoutException e) {
      throw timedOut(what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while trying to " + what + ".", e);
    }
  }

  private IllegalStateException failed(String what, ExecutionException e) {
    return new IllegalStateException("Kafka at " + kafka.bootstrap() + " could not " + what + ": "
        + e.getCause().getMessage(), e.getCause());
  }

  private IllegalStateException timedOut(String what, TimeoutException e) {
    return new IllegalStateException("Kafka at " + kafka.bootstrap() + " did not " + what + " within "
        + DEADLINE.toSeconds() + " s.", e);
  }

  @Override
  public void close() {
    admin.close(DEADLINE);
  }
}
