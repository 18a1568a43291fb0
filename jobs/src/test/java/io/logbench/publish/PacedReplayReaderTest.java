package io.logbench.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.pacing.WallClock;
import io.logbench.schedule.ConstantRateSchedule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The paced reader over a scripted stand-in of the Kafka reader (which, like the real one, hands
 * over a chunk of one partition's lines, then a chunk of the next's): lines go out when due and in
 * due order across partitions, no more lines are queued than the limit, and a snapshot puts every
 * partition back to its first line not yet let out, so a restore neither loses nor repeats one.
 */
class PacedReplayReaderTest {

  static final String TOPIC = "t";
  static final int PARTITIONS = 3;

  /** Line {@code seq} (from 0) is in partition {@code seq % 3} at offset {@code 100 * p + seq / 3}. */
  static Map<Integer, List<ReplayLine>> topic(int lines) {
    Map<Integer, List<ReplayLine>> parts = new LinkedHashMap<>();
    for (int seq = 0; seq < lines; seq++) {
      int p = seq % PARTITIONS;
      parts.computeIfAbsent(p, x -> new ArrayList<>())
          .add(new ReplayLine(seq, 1_000L * seq, 0, new byte[] {(byte) seq}, p, 100L * p + seq / PARTITIONS));
    }
    return parts;
  }

  @Test
  void linesGoOutWhenDueInBatchOrderWithAtMostTheLimitQueued() throws Exception {
    int lines = 120;
    // 600 lines/s, 6-line batches: a batch every 10 ms, the run lasts 0.2 s
    Pacing pacing = new Pacing(0, 6, new ConstantRateSchedule(600, lines), System.currentTimeMillis());
    Scripted kafka = new Scripted(topic(lines), false, 5);
    PacedReplayReader reader = new PacedReplayReader(kafka, pacing, TOPIC, context(), 20);
    reader.addSplits(kafka.splits());
    reader.notifyNoMoreSplits();
    Collected out = new Collected();
    kafka.out = out;
    drain(reader, out);

    assertThat(out.seqs).hasSize(lines);
    assertThat(new TreeSet<>(out.seqs)).hasSize(lines);
    for (int k = 0; k < lines; k++) {
      long seq = out.seqs.get(k);
      assertThat(out.atNanos.get(k)).as("line %d let out when due", seq).isGreaterThanOrEqualTo(pacing.dueNanos(seq));
      if (k > 0) {
        assertThat(pacing.batchOf(seq)).as("batch order").isGreaterThanOrEqualTo(pacing.batchOf(out.seqs.get(k - 1)));
      }
    }
    // the Kafka reader was not asked for more once 20 lines waited (it hands over one at a time)
    assertThat(kafka.mostQueued).isEqualTo(20);
  }

  @Test
  void aSnapshotRewindsEveryPartitionToItsFirstLineNotLetOutAndARestoreFinishesTheRun() throws Exception {
    int lines = 30;
    // one line a second in 2-line batches: batch 0 is due at once, batch 1 two seconds later
    Pacing pacing = new Pacing(0, 2, new ConstantRateSchedule(1, lines), System.currentTimeMillis());
    Map<Integer, List<ReplayLine>> data = topic(lines);
    // the stand-in hands over every line before the snapshot: each partition is finished in it
    Scripted kafka = new Scripted(data, false, 10);
    PacedReplayReader reader = new PacedReplayReader(kafka, pacing, TOPIC, context(), 100);
    reader.addSplits(kafka.splits());
    reader.notifyNoMoreSplits();
    List<Long> before = new ArrayList<>();
    Collected out = new Collected();
    InputStatus status;
    while ((status = reader.pollNext(out)) != InputStatus.NOTHING_AVAILABLE) {
      assertThat(status).isEqualTo(InputStatus.MORE_AVAILABLE);
    }
    before.addAll(out.seqs);
    assertThat(before).containsExactlyInAnyOrder(0L, 1L);
    assertThat(kafka.finished).containsExactlyInAnyOrder("t-0", "t-1", "t-2");
    assertThat(kafka.snapshotState(1)).isEmpty();

    List<KafkaPartitionSplit> snapshot = reader.snapshotState(1);
    Map<Integer, Long> starts = new HashMap<>();
    snapshot.forEach(s -> starts.put(s.getPartition(), s.getStartingOffset()));
    // lines 0 (offset 0) and 1 (offset 100) went out; the rest of each partition is queued here
    assertThat(starts).containsEntry(0, 1L).containsEntry(1, 101L).containsEntry(2, 200L);
    assertThat(snapshot).allMatch(s -> s.getStoppingOffset().orElseThrow() == 100L * s.getPartition() + 10);
    reader.close();

    // restored (the run's start long past, so everything is due): the lines not out before, once each
    Pacing late = new Pacing(0, 2, new ConstantRateSchedule(1, lines), 0);
    Scripted restored = new Scripted(data, true, 10);
    PacedReplayReader again = new PacedReplayReader(restored, late, TOPIC, context(), 100);
    again.addSplits(snapshot);
    again.notifyNoMoreSplits();
    List<Long> after = drain(again, new Collected()).seqs;
    List<Long> all = new ArrayList<>(before);
    all.addAll(after);
    assertThat(all).hasSize(lines);
    assertThat(new TreeSet<>(all)).hasSize(lines).first().isEqualTo(0L);
  }

  static Collected drain(PacedReplayReader reader, Collected out) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      InputStatus s = reader.pollNext(out);
      if (s == InputStatus.END_OF_INPUT) {
        return out;
      }
      if (s == InputStatus.NOTHING_AVAILABLE) {
        reader.isAvailable().get(30, TimeUnit.SECONDS);
      }
      assertThat(System.nanoTime()).as("the reader finishes within 30 s").isLessThan(deadline);
    }
  }

  /** Keeps what the reader lets out and when. */
  static final class Collected implements ReaderOutput<ReplayLine> {
    final List<Long> seqs = new ArrayList<>();
    final List<Long> atNanos = new ArrayList<>();

    @Override
    public void collect(ReplayLine line) {
      seqs.add(line.seq);
      atNanos.add(WallClock.epochNanos());
    }

    @Override
    public void collect(ReplayLine line, long timestamp) {
      collect(line);
    }

    @Override
    public void emitWatermark(Watermark watermark) {}

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<ReplayLine> createOutputForSplit(String splitId) {
      return this;
    }

    @Override
    public void releaseOutputForSplit(String splitId) {}
  }

  /**
   * A stand-in of the Kafka reader: hands over {@code chunk} lines of one partition, then of the
   * next, one line per call, from the offsets its splits start at; a partition read to its stopping
   * offset is finished and leaves its snapshot, as in the connector.
   */
  static final class Scripted implements SourceReader<ReplayLine, KafkaPartitionSplit> {
    final Map<Integer, List<ReplayLine>> data;
    final boolean fromSplits;
    final int chunk;
    final Map<Integer, Integer> position = new HashMap<>();
    final Map<Integer, KafkaPartitionSplit> assigned = new LinkedHashMap<>();
    final List<String> finished = new ArrayList<>();
    int current;
    int inChunk;
    int handedOver;
    int mostQueued;
    Collected out;
    boolean noMoreSplits;

    Scripted(Map<Integer, List<ReplayLine>> data, boolean fromSplits, int chunk) {
      this.data = data;
      this.fromSplits = fromSplits;
      this.chunk = chunk;
    }

    List<KafkaPartitionSplit> splits() {
      List<KafkaPartitionSplit> s = new ArrayList<>();
      data.forEach((p, l) ->
          s.add(new KafkaPartitionSplit(new TopicPartition(TOPIC, p), 100L * p, 100L * p + l.size())));
      return s;
    }

    boolean left(int p) {
      return assigned.containsKey(p) && position.get(p) < data.get(p).size();
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<ReplayLine> output) {
      for (int tries = 0; tries <= PARTITIONS; tries++) {
        if (!left(current) || inChunk == chunk) {
          current = (current + 1) % PARTITIONS;
          inChunk = 0;
          continue;
        }
        int at = position.get(current);
        output.collect(data.get(current).get(at));
        position.put(current, at + 1);
        inChunk++;
        handedOver++;
        if (out != null) {
          // handed over minus let out: what the paced reader holds
          mostQueued = Math.max(mostQueued, handedOver - out.seqs.size());
        }
        if (at + 1 == data.get(current).size()) {
          finished.add(assigned.get(current).splitId());
        }
        return InputStatus.MORE_AVAILABLE;
      }
      return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
      List<KafkaPartitionSplit> out = new ArrayList<>();
      assigned.forEach((p, s) -> {
        if (position.get(p) < data.get(p).size()) {
          out.add(new KafkaPartitionSplit(s.getTopicPartition(), data.get(p).get(position.get(p)).offset,
              s.getStoppingOffset().orElseThrow()));
        }
      });
      return out;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      // never ready: the paced reader must not wait on it alone while its own lines fall due
      return new CompletableFuture<>();
    }

    @Override
    public void addSplits(List<KafkaPartitionSplit> splits) {
      for (KafkaPartitionSplit s : splits) {
        assigned.put(s.getPartition(), s);
        List<ReplayLine> l = data.get(s.getPartition());
        int at = 0;
        while (at < l.size() && l.get(at).offset < s.getStartingOffset()) {
          at++;
        }
        position.put(s.getPartition(), fromSplits ? at : 0);
      }
    }

    @Override
    public void notifyNoMoreSplits() {
      noMoreSplits = true;
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {}

    @Override
    public void close() {}
  }

  /** A reader context of subtask 0 (the source tests' own). */
  static SourceReaderContext context() {
    return new io.logbench.source.RecordingReaderContext();
  }
}
