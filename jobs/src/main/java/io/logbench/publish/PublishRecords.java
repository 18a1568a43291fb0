package io.logbench.publish;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.kafka.KafkaTopics;
import io.logbench.sink.kafka.internal.LogRecordEncoder;
import io.logbench.sink.kafka.internal.StreamKeys;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Turns batches into the records of one writer: writer {@code w} of {@code W} owns the partitions
 * {@code p} with {@code p mod W = w} and writes the lines whose stream's key falls there (Kafka's
 * default partitioner: murmur2 of the key). As each writer reads every batch in order, every
 * partition receives its lines in sequence order, from one writer: what lets a replay pace each
 * partition by holding back its head line.
 */
public final class PublishRecords extends RichFlatMapFunction<LineBatch, EncodedRecord> {

  private static final long serialVersionUID = 1L;

  private final StreamCatalog streams;
  private final int partitions;
  private final int writers;
  private final int writer;

  private transient StreamKeys keys;
  private transient LogRecordEncoder encoder;
  private transient int[] partitionOf;

  public PublishRecords(StreamCatalog streams, int partitions, int writers, int writer) {
    if (writers < 1 || writer < 0 || writer >= writers || writers > partitions) {
      throw new IllegalArgumentException("Writer " + writer + " of " + writers + " over " + partitions
          + " partitions does not exist; there are 1 to " + partitions + " writers, numbered from 0.");
    }
    this.streams = streams;
    this.partitions = partitions;
    this.writers = writers;
    this.writer = writer;
  }

  /** The partition of every stream of {@code streams} in a topic of {@code partitions} partitions. */
  public static int[] partitions(StreamCatalog streams, int partitions) {
    StreamKeys keys = StreamKeys.of(streams);
    int[] p = new int[streams.size()];
    for (int id = 0; id < p.length; id++) {
      p[id] = KafkaTopics.partitionOf(keys.key(id), partitions);
    }
    return p;
  }

  @Override
  public void open(OpenContext context) {
    keys = StreamKeys.of(streams);
    encoder = new LogRecordEncoder(streams);
    partitionOf = partitions(streams, partitions);
  }

  @Override
  public void flatMap(LineBatch batch, Collector<EncodedRecord> out) {
    for (int k = 0; k < batch.count(); k++) {
      int stream = batch.stream(k);
      int p = partitionOf[stream];
      if (p % writers == writer) {
        out.collect(new EncodedRecord(p, batch.timestampMillis(k), keys.key(stream), encoder.encode(batch, k)));
      }
    }
  }
}
