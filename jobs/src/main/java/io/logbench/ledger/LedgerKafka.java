package io.logbench.ledger;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Properties;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.formats.avro.AvroSerializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The ledger's Kafka output: every ledger row as an Avro {@code io.logbench.schemas.LedgerEntry},
 * keyed by {@code run/backend/windowStart} so the newest record of a key is the current row (a
 * compacted topic keeps exactly the final ledger).
 *
 * @param bootstrap Kafka bootstrap servers
 * @param topic the ledger topic
 */
public record LedgerKafka(String bootstrap, String topic) implements Serializable {

  /** Adds a sink of {@code rows} of run {@code run} to the topic (at-least-once; upserts make repeats harmless). */
  public void sink(DataStream<LedgerEntry> rows, String run, String uid) {
    Properties props = new Properties();
    props.setProperty("enable.idempotence", "true");
    KafkaSink<io.logbench.schemas.LedgerEntry> sink =
        KafkaSink.<io.logbench.schemas.LedgerEntry>builder()
            .setBootstrapServers(bootstrap)
            .setKafkaProducerConfig(props)
            .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
            .setRecordSerializer(
                KafkaRecordSerializationSchema.<io.logbench.schemas.LedgerEntry>builder()
                    .setTopic(topic)
                    .setKeySerializationSchema(
                        e -> (e.getRun() + "/" + e.getBackend() + "/" + e.getWindowStartMillis())
                            .getBytes(StandardCharsets.UTF_8))
                    .setValueSerializationSchema(
                        AvroSerializationSchema.forSpecific(io.logbench.schemas.LedgerEntry.class))
                    .build())
            .build();
    rows.map(new ToAvro(run))
        .returns(io.logbench.schemas.LedgerEntry.class)
        .uid("ledger-avro-" + uid)
        .name("ledger to avro " + uid)
        .sinkTo(sink)
        .uid("ledger-kafka-" + uid)
        .name("ledger to kafka " + uid);
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
  }
}
