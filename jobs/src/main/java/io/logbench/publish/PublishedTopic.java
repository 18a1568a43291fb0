package io.logbench.publish;

import io.logbench.sink.kafka.KafkaConnection;
import java.util.Objects;

/**
 * A dataset read back from Kafka ({@code dataset: {kind: kafka, bootstrap, topic}}): where the
 * topic is, and its manifest, read when the run file was loaded.
 *
 * @param kafka how to reach the cluster
 * @param topic the topic {@code publish} wrote the lines to
 * @param manifest what the topic holds
 */
public record PublishedTopic(KafkaConnection kafka, String topic, Manifest manifest) {

  public PublishedTopic {
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(manifest, "manifest");
  }

  @Override
  public String toString() {
    return "kafka topic " + topic + " at " + kafka.bootstrap();
  }
}
