package io.logbench.publish;

import io.logbench.dataset.LineBatch;
import io.logbench.pacing.WallClock;
import io.logbench.schedule.Timeline;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Puts replayed lines back into the run's batches: keyed by batch id ({@link Pacing#batchOf}), it
 * holds a batch's lines (they come from several partitions, a topic being keyed by stream) and
 * emits the batch, in sequence order, as soon as all its lines are in. A batch is what a generated
 * run would have sent: the same id, lines, sequence ids and streams, timestamps from the run's
 * timeline, and its due time as scheduled time (latency counts from there); so the ledger,
 * delivery and verification work unchanged.
 *
 * <p>A line read twice (only if the topic holds it twice) is taken once. A batch still short when
 * the input ends means the topic lacks lines its manifest counts: the job fails and says which.
 */
final class ReplayBatcher extends KeyedProcessFunction<Long, ReplayLine, LineBatch> {

  private static final long serialVersionUID = 1L;

  private final String topic;
  private final Pacing pacing;
  private final Timeline timeline;

  private transient MapState<Long, ReplayLine> lines;
  private transient ValueState<Integer> held;

  ReplayBatcher(String topic, Pacing pacing, Timeline timeline) {
    this.topic = topic;
    this.pacing = pacing;
    this.timeline = timeline;
  }

  @Override
  public void open(OpenContext context) {
    lines = getRuntimeContext().getMapState(
        new MapStateDescriptor<>("lines", Types.LONG, TypeInformation.of(ReplayLine.class)));
    held = getRuntimeContext().getState(new ValueStateDescriptor<>("held", Types.INT));
  }

  @Override
  public void processElement(ReplayLine line, Context ctx, Collector<LineBatch> out) throws Exception {
    if (lines.contains(line.seq)) {
      return;
    }
    long batch = ctx.getCurrentKey();
    Integer before = held.value();
    int n = before == null ? 1 : before + 1;
    if (n == pacing.batchLines(batch)) {
      List<ReplayLine> all = new ArrayList<>(n);
      lines.values().forEach(all::add);
      all.add(line);
      lines.clear();
      held.clear();
      if (before != null) {
        ctx.timerService().deleteEventTimeTimer(Long.MAX_VALUE);
      }
      out.collect(batch(batch, all));
      return;
    }
    lines.put(line.seq, line);
    held.update(n);
    if (before == null) {
      // fires only with the final watermark, when the bounded input has ended
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<LineBatch> out) throws Exception {
    Integer n = held.value();
    if (n == null) {
      return;
    }
    long batch = ctx.getCurrentKey();
    long first = pacing.firstSeq() + pacing.batchStart(batch);
    throw new IllegalStateException("Kafka topic " + topic + " ended with " + n + " of the "
        + pacing.batchLines(batch) + " lines of batch " + batch + " (sequence ids " + first + " to "
        + (first + pacing.batchLines(batch) - 1) + "): the topic lacks lines its manifest counts."
        + " Publish the dataset again (publish --overwrite).");
  }

  private LineBatch batch(long batchId, List<ReplayLine> all) {
    all.sort((a, b) -> Long.compare(a.seq, b.seq));
    int bytes = 0;
    for (ReplayLine l : all) {
      bytes += l.line.length;
    }
    LineBatch batch = new LineBatch(all.size(), Math.max(16, bytes));
    long start = pacing.batchStart(batchId);
    batch.reset(batchId, pacing.firstSeq() + start);
    for (ReplayLine l : all) {
      long runIndex = l.seq - pacing.firstSeq();
      batch.append(l.line, 0, l.line.length,
          timeline.lineMillis(runIndex, l.millis, pacing.runStartMillis()), l.stream);
    }
    // latency counts from the due time, as for a generated run
    batch.setScheduledNanos(pacing.paced() ? pacing.batchDueNanos(batchId) : WallClock.epochNanos());
    return batch;
  }
}
