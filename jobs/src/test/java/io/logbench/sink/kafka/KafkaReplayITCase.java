package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.testing.LoopbackMiniCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replaying a topic gives back the original batches of one run: same ids, lines, times and
 * streams, and none of another run's records in the same topic.
 */
class KafkaReplayITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(2);

  @Test
  void replayedBatchesEqualTheOriginalsOfTheirRunOnly() throws Exception {
    String topic = "replay-batches";
    KafkaTestBroker.get().createTopic(topic, 3);
    KafkaBackend backend =
        KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic(topic).build();
    long origin = 137;
    int batchSize = 50;
    int lines = 1_020; // the last batch is short: it is emitted when the input ends
    Map<Long, String> originals = new TreeMap<>();
    try (KafkaSender sender = backend.open(RunContext.of(KafkaTestData.CATALOG).withRunId("replay-a"))) {
      for (long b = 0; b * batchSize < lines; b++) {
        int n = (int) Math.min(batchSize, lines - b * batchSize);
        LineBatch batch = KafkaTestData.batch(b, origin + b * batchSize, n);
        originals.put(b, describe(batch));
        assertThat(sender.send(batch).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      }
    }
    // another run in the same topic, with lines the first run does not have: never replayed
    try (KafkaSender other = backend.open(RunContext.of(KafkaTestData.CATALOG).withRunId("replay-b"))) {
      LineBatch batch = KafkaTestData.batch(100, origin + lines, batchSize);
      assertThat(other.send(batch).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    DataStream<LineBatch> replayed =
        KafkaReplaySource.replay(env, backend, "replay-it", KafkaTestData.CATALOG, origin, batchSize, "replay-a");
    List<LineBatch> got = new ArrayList<>();
    try (CloseableIterator<LineBatch> it = replayed.executeAndCollect("kafka replay")) {
      it.forEachRemaining(got::add);
    }
    Map<Long, String> byId = new TreeMap<>();
    for (LineBatch b : got) {
      assertThat(byId.put(b.batchId(), describe(b))).as("batch %d emitted once", b.batchId()).isNull();
    }
    assertThat(byId).isEqualTo(originals);
  }

  /** Everything of a batch but its schedule time. */
  private static String describe(LineBatch b) {
    StringBuilder sb = new StringBuilder();
    sb.append(b.batchId()).append('/').append(b.firstSeq()).append('/').append(b.count());
    for (int k = 0; k < b.count(); k++) {
      sb.append('\n').append(b.seq(k)).append(' ').append(b.timestampMillis(k)).append(' ')
          .append(b.stream(k)).append(' ').append(b.lineAsString(k));
    }
    return sb.toString();
  }
}
