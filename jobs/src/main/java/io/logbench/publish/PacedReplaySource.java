package io.logbench.publish;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The Kafka connector's {@link KafkaSource} with its readers paced: partitions are spread over the
 * readers and offsets kept in checkpoints by the connector itself (its enumerator, splits and
 * serializers are used as they are); each reader is wrapped in a {@link PacedReplayReader}, which
 * lets a line out when its batch is due.
 */
final class PacedReplaySource
    implements Source<ReplayLine, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<ReplayLine> {

  private static final long serialVersionUID = 1L;

  private final KafkaSource<ReplayLine> kafka;
  private final Pacing pacing;
  private final String topic;

  PacedReplaySource(KafkaSource<ReplayLine> kafka, Pacing pacing, String topic) {
    this.kafka = kafka;
    this.pacing = pacing;
    this.topic = topic;
  }

  @Override
  public Boundedness getBoundedness() {
    return kafka.getBoundedness();
  }

  @Override
  public SourceReader<ReplayLine, KafkaPartitionSplit> createReader(SourceReaderContext context) throws Exception {
    return new PacedReplayReader(kafka.createReader(context), pacing, topic, context);
  }

  @Override
  public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
      SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
    return kafka.createEnumerator(context);
  }

  @Override
  public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
      SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState checkpoint) throws Exception {
    return kafka.restoreEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
    return kafka.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
    return kafka.getEnumeratorCheckpointSerializer();
  }

  @Override
  public TypeInformation<ReplayLine> getProducedType() {
    return kafka.getProducedType();
  }
}
