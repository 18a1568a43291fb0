package io.logbench.publish;

import io.logbench.sink.kafka.KafkaConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Reads and writes manifests in {@code <topic>.manifest}, a compacted topic whose record keyed
 * {@code <topic>} (UTF-8) is the current manifest of {@code <topic>}; a record with no value (a
 * tombstone) means the topic has none.
 */
public final class ManifestStore {

  /** How long a manifest read or write may take before it is an error. */
  static final Duration DEADLINE = Duration.ofSeconds(30);

  private ManifestStore() {}

  /** The companion topic of {@code topic}'s manifest. */
  public static String manifestTopic(String topic) {
    return topic + ".manifest";
  }

  /**
   * The current manifest of {@code topic}, or empty when its manifest topic does not exist or
   * holds none for it.
   *
   * @throws IllegalStateException when Kafka does not answer within {@link #DEADLINE}
   */
  public static Optional<Manifest> read(KafkaConnection kafka, String topic) {
    return readRaw(kafka, topic).map(v -> Manifest.parse(v, "the manifest of topic " + topic + " (topic "
        + manifestTopic(topic) + ", key " + topic + ")"));
  }

  /** The current value keyed {@code topic} in its manifest topic, unparsed. */
  static Optional<byte[]> readRaw(KafkaConnection kafka, String topic) {
    String manifests = manifestTopic(topic);
    Properties p = kafka.clientProperties();
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    byte[] key = topic.getBytes(StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      Map<String, List<PartitionInfo>> topics = consumer.listTopics(DEADLINE);
      List<PartitionInfo> infos = topics.get(manifests);
      if (infos == null || infos.isEmpty()) {
        return Optional.empty();
      }
      List<TopicPartition> parts = new ArrayList<>();
      infos.forEach(i -> parts.add(new TopicPartition(manifests, i.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts, DEADLINE);
      byte[] value = null;
      boolean found = false;
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Reading topic " + manifests + " at " + kafka.bootstrap()
              + " took longer than " + DEADLINE.toSeconds() + " s.");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() != null && Arrays.equals(r.key(), key)) {
            value = r.value();
            found = true;
          }
        }
      }
      return found && value != null ? Optional.of(value) : Optional.empty();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new IllegalStateException("Kafka at " + kafka.bootstrap() + " did not answer within "
          + DEADLINE.toSeconds() + " s while reading topic " + manifests + ".", e);
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

  /** Makes {@code manifest} the current manifest of its topic. */
  public static void write(KafkaConnection kafka, Manifest manifest) {
    send(kafka, manifest.topic(), manifest.toJson());
  }

  /** Removes {@code topic}'s manifest (a tombstone: compaction then drops the key). */
  public static void delete(KafkaConnection kafka, String topic) {
    send(kafka, topic, null);
  }

  private static void send(KafkaConnection kafka, String topic, byte[] value) {
    Properties p = kafka.clientProperties();
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>(manifestTopic(topic), topic.getBytes(StandardCharsets.UTF_8), value))
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Writing the manifest of topic " + topic + " to topic " + manifestTopic(topic)
          + " failed: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka at " + kafka.bootstrap() + " did not take the manifest of topic "
          + topic + " within " + DEADLINE.toSeconds() + " s.", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing the manifest of topic " + topic + ".", e);
    }
  }
}
