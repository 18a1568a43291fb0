package io.logbench.sink.kafka;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.utils.Utils;

/**
 * What a topic's configuration means for lines stamped with their own time, shared by the
 * backend's preflight and {@code publish}: Kafka deletes whole segments whose newest record
 * timestamp is older than {@code retention.ms}, so records stamped May 2021 vanish at the next
 * retention check unless the topic keeps them for ever.
 */
public final class KafkaTopics {

  private KafkaTopics() {}

  /** {@code retention.ms} of a described topic; -1 (keep for ever) when the broker did not say. */
  public static long retentionMs(Config config) {
    return longValue(config, "retention.ms", -1);
  }

  /** A numeric config of a described topic, or {@code fallback} when absent. */
  public static long longValue(Config config, String key, long fallback) {
    ConfigEntry e = config.get(key);
    return e == null || e.value() == null ? fallback : Long.parseLong(e.value());
  }

  /**
   * Whether a topic keeping records for {@code retentionMs} (-1: for ever) would delete a record
   * stamped {@code oldestLineMillis} at {@code nowMillis}.
   */
  public static boolean deletes(long retentionMs, long oldestLineMillis, long nowMillis) {
    return retentionMs >= 0 && nowMillis - oldestLineMillis > retentionMs;
  }

  /**
   * The partition Kafka's default partitioner gives a record with this key: murmur2 of the key,
   * made positive, modulo the partition count. Computed here so a writer can own whole partitions.
   */
  public static int partitionOf(byte[] key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key)) % partitions;
  }
}
