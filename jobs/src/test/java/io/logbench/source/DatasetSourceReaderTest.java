package io.logbench.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.schedule.Schedule;
import io.logbench.source.internal.DatasetSourceReader;
import io.logbench.source.internal.RunPlan;
import io.logbench.source.internal.StripeSplit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.io.InputStatus;
import org.junit.jupiter.api.Test;

/** Order, end of input, restore, pacing and metrics of the dataset source reader. */
class DatasetSourceReaderTest {

  private static final long START = 1_700_000_000_000L;

  @Test
  void emitsTheSmallestPendingBatchFirstAcrossItsStripes() throws Exception {
    RunPlan plan = unpacedPlan(48, 5); // 10 batches, the last of 3 lines
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(2, 3, 2, START), new StripeSplit(0, 3, 0, START)));

      drain(reader, output);
      assertThat(output.ids()).containsExactly(0L, 2L, 3L, 5L, 6L, 8L, 9L);
      assertThat(reader.isAvailable()).isNotDone();

      reader.notifyNoMoreSplits();
      assertThat(reader.isAvailable()).isDone();
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
    }
    LineBatch last = output.batches.get(6);
    assertThat(last.firstSeq()).isEqualTo(100 + 45);
    assertThat(last.count()).isEqualTo(3);
    assertThat(last.lineAsString(2)).isEqualTo("line-147");
    assertThat(last.timestampMillis(2)).isEqualTo(TestDataset.START_MILLIS + 1_470);
  }

  /**
   * A batch given back on the reader's thread ({@link io.logbench.dataset.LineBatchPool}) is filled
   * again for the next batch, with the next batch's content and form whatever it held (here an
   * escaped, larger batch of other lines); with none given back, each batch is new.
   */
  @Test
  void aBatchGivenBackOnTheReadersThreadIsFilledAgain() throws Exception {
    RunPlan plan = unpacedPlan(48, 5);
    CollectingOutput output = new CollectingOutput();
    LineBatch used = new LineBatch();
    used.setJsonEscaped(true);
    used.reset(77, 7_000);
    for (int k = 0; k < 40; k++) {
      byte[] line = ("an older line, longer than the dataset's " + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      used.append(line, 0, line.length, 1, 2);
    }
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, START)));
      reader.notifyNoMoreSplits();
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
      io.logbench.dataset.LineBatchPool.give(used);
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
    } finally {
      while (io.logbench.dataset.LineBatchPool.take() != null) {
        // dropped
      }
    }
    assertThat(output.batches).hasSize(3);
    assertThat(output.batches.get(1)).isSameAs(used);
    assertThat(output.batches.get(2)).isNotSameAs(used).isNotSameAs(output.batches.get(0));
    LineBatch refilled = output.batches.get(1);
    assertThat(refilled.batchId()).isEqualTo(1);
    assertThat(refilled.firstSeq()).isEqualTo(105);
    assertThat(refilled.count()).isEqualTo(5);
    assertThat(refilled.jsonEscaped()).isFalse();
    for (int k = 0; k < 5; k++) {
      assertThat(refilled.lineAsString(k)).isEqualTo("line-" + (105 + k));
      assertThat(refilled.seq(k)).isEqualTo(105 + k);
      assertThat(refilled.timestampMillis(k)).isEqualTo(TestDataset.START_MILLIS + (105 + k) * 10);
    }
  }

  /**
   * With endAfterCheckpoint the last batch is not the end: the input stays open until a
   * checkpoint snapshotted after it completes (not one snapshotted before, nor an earlier one).
   */
  @Test
  void batchesWhoseFirstLineIsInAGapAreNeverEmittedOnEveryStripe() throws Exception {
    TestDataset dataset = new TestDataset(1_000);
    Schedule schedule = ConstantRateSchedule.unpaced(48);
    // lines 10 to 35 never sent: batches 2 to 6 of 5 lines
    RunPlan plan = new RunPlan(dataset, 100, schedule, new OriginalTimeline(dataset, 100, 48), 5, 0,
        io.logbench.schedule.Gaps.of(List.of(new long[] {10, 35})));
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 3, 0, START), new StripeSplit(1, 3, 1, START),
          new StripeSplit(2, 3, 2, START)));
      reader.notifyNoMoreSplits();
      drain(reader, output);
    }
    assertThat(output.ids()).containsExactly(0L, 1L, 7L, 8L, 9L);
    assertThat(output.batches.get(2).lineAsString(0)).isEqualTo("line-135");
  }

  @Test
  void forABackendThatWritesLinesInJsonStringsTheBatchesHoldThemEscapedWhenTheDatasetMakesThemSo()
      throws Exception {
    io.logbench.dataset.app.AppJsonDataset app =
        io.logbench.dataset.app.AppJsonDataset.builder().seed(5).lines(1_000).build();
    RunPlan plan = new RunPlan(app, 100, ConstantRateSchedule.unpaced(48), new OriginalTimeline(app, 100, 48), 5);
    CollectingOutput raw = new CollectingOutput();
    CollectingOutput escaped = new CollectingOutput();
    for (boolean json : new boolean[] {false, true}) {
      try (DatasetSourceReader reader =
          new DatasetSourceReader(plan, new RecordingReaderContext(), null, null, false, json)) {
        reader.addSplits(List.of(new StripeSplit(0, 1, 0, START)));
        reader.notifyNoMoreSplits();
        drain(reader, json ? escaped : raw);
      }
    }
    assertThat(escaped.ids()).hasSize(10).isEqualTo(raw.ids());
    for (int b = 0; b < raw.batches.size(); b++) {
      LineBatch r = raw.batches.get(b);
      LineBatch e = escaped.batches.get(b);
      assertThat(r.jsonEscaped()).isFalse();
      assertThat(e.jsonEscaped()).isTrue();
      for (int k = 0; k < r.count(); k++) {
        assertThat(e.lineAsString(k)).isEqualTo(r.lineAsString(k)).startsWith("{\"namespace\"");
        assertThat(e.length(k)).isGreaterThan(r.length(k));
        assertThat(e.timestampMillis(k)).isEqualTo(r.timestampMillis(k));
      }
    }
    // a dataset that cannot make escaped lines gives raw ones, which such a backend escapes
    CollectingOutput test = new CollectingOutput();
    try (DatasetSourceReader reader =
        new DatasetSourceReader(unpacedPlan(48, 5), new RecordingReaderContext(), null, null, false, true)) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, START)));
      reader.notifyNoMoreSplits();
      drain(reader, test);
    }
    assertThat(test.batches).hasSize(10).noneMatch(LineBatch::jsonEscaped);
  }

  @Test
  void endAfterCheckpointEndsOnlyOnceACheckpointTakenAfterTheLastBatchCompletes() throws Exception {
    RunPlan plan = unpacedPlan(48, 5);
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext(), null, null, true, false)) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, START)));
      reader.notifyNoMoreSplits();
      reader.snapshotState(3); // before the last batch: does not count
      while (reader.pollNext(output) == InputStatus.MORE_AVAILABLE) {
        // emit every batch
      }
      assertThat(output.ids()).hasSize(10);
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
      reader.notifyCheckpointComplete(3);
      assertThat(reader.isAvailable()).isNotDone();
      reader.snapshotState(4);
      reader.snapshotState(5);
      reader.notifyCheckpointComplete(3);
      assertThat(reader.isAvailable()).isNotDone();
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
      reader.notifyCheckpointComplete(4);
      assertThat(reader.isAvailable()).isDone();
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
    }
    assertThat(output.ids()).hasSize(10);
  }

  @Test
  void aRestoredReaderContinuesWhereTheSnapshotWas() throws Exception {
    RunPlan plan = unpacedPlan(48, 5);
    CollectingOutput straight = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 2, 0, START), new StripeSplit(1, 2, 1, START)));
      reader.notifyNoMoreSplits();
      drain(reader, straight);
    }

    CollectingOutput first = new CollectingOutput();
    List<StripeSplit> state;
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 2, 0, START), new StripeSplit(1, 2, 1, START)));
      for (int i = 0; i < 3; i++) {
        reader.pollNext(first);
      }
      state = reader.snapshotState(1);
    }
    assertThat(state)
        .containsExactlyInAnyOrder(new StripeSplit(0, 2, 4, START), new StripeSplit(1, 2, 3, START));

    CollectingOutput rest = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(state);
      reader.notifyNoMoreSplits();
      drain(reader, rest);
    }
    List<String> resumed =
        java.util.stream.Stream.concat(first.batches.stream(), rest.batches.stream())
            .map(LineBatchSerializerTest::describe)
            .toList();
    assertThat(resumed)
        .isEqualTo(straight.batches.stream().map(LineBatchSerializerTest::describe).toList());
  }

  @Test
  void waitsForTheDueTimeOnATimerAndReportsMetrics() throws Exception {
    Schedule schedule = new ConstantRateSchedule(20, 40);
    long runStart = System.currentTimeMillis() + 200;
    RunPlan plan =
        new RunPlan(new TestDataset(20), 0, schedule, new NowTimeline(schedule), 10);
    RecordingReaderContext context = new RecordingReaderContext();
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, context)) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();

      for (long b = 0; b < 2; b++) {
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        CompletableFuture<Void> available = reader.isAvailable();
        assertThat(available).isNotDone();
        available.get(10, TimeUnit.SECONDS);
        long dueMillis = runStart + schedule.dueNanos(b * 10) / 1_000_000L;
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(dueMillis - 1);
        InputStatus status;
        // The timer may fire a hair early by the wall clock; the reader then waits again.
        while ((status = reader.pollNext(output)) == InputStatus.NOTHING_AVAILABLE) {
          reader.isAvailable().get(10, TimeUnit.SECONDS);
        }
        assertThat(status).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(output.ids()).hasSize((int) b + 1);
      }
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
    }
    assertThat(output.batches.get(1).timestampMillis(0)).isEqualTo(runStart + 250);
    assertThat(context.metrics.counters.get("linesEmitted").getCount()).isEqualTo(20);
    assertThat(context.metrics.counters.get("batchesEmitted").getCount()).isEqualTo(2);
    assertThat((Long) context.metrics.gauges.get("scheduleLagMillis").getValue())
        .isBetween(0L, 5_000L);
  }

  /**
   * Batches due 10 ms apart, within the reader's own wait (20 ms): each poll sleeps on the calling
   * thread until the next batch is due and emits it, without an availability future to wait for.
   */
  @Test
  void aBatchDueWithinTheOwnWaitIsEmittedByThePollAtItsDueTime() throws Exception {
    Schedule schedule = new ConstantRateSchedule(40, 1_000); // 10-line batches every 10 ms
    long runStart = System.currentTimeMillis();
    RunPlan plan = new RunPlan(new TestDataset(40), 0, schedule, new NowTimeline(schedule), 10);
    assertThat(plan.ownWaitNanos()).isEqualTo(RunPlan.DEFAULT_OWN_WAIT_NANOS).isEqualTo(20_000_000L);
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();
      for (int b = 0; b < 4; b++) {
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
        long now = System.currentTimeMillis() * 1_000_000L;
        // not early (the millisecond clock may lag the microsecond one the reader sleeps by)
        assertThat(output.batches.get(b).scheduledNanos()).isLessThanOrEqualTo(now + 1_000_000L);
      }
      assertThat(output.batches).hasSize(4);
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
    }
  }

  /**
   * A reader waiting for its first batch's due time emits nothing before it; a snapshot taken
   * during the wait still has that batch to send, and a reader restored from that snapshot sends
   * the same batches, line for line and at the same scheduled times, as one that ran straight
   * through. (A reader that made the batch before the wait, tried in docs/benchmarks.md's
   * eighteenth round, had to keep to this too.)
   */
  @Test
  void aSnapshotTakenWhileTheReaderWaitsStillHasTheAwaitedBatchAndARestoreSendsTheSame() throws Exception {
    Schedule schedule = new ConstantRateSchedule(30, 100); // 10-line batches every 100 ms
    long runStart = System.currentTimeMillis() + 300; // the first due beyond the own wait (20 ms)
    RunPlan plan = new RunPlan(new TestDataset(30), 0, schedule, new NowTimeline(schedule), 10);
    List<StripeSplit> state;
    CollectingOutput first = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();
      assertThat(reader.pollNext(first)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
      assertThat(first.batches).isEmpty();
      state = reader.snapshotState(1);
    }
    assertThat(state).containsExactly(new StripeSplit(0, 1, 0, runStart));

    CollectingOutput restored = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(state);
      reader.notifyNoMoreSplits();
      drainPaced(reader, restored);
    }
    // the same run straight through, every batch overdue by now
    CollectingOutput straight = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();
      drainPaced(reader, straight);
    }
    assertThat(straight.batches).hasSize(3);
    assertThat(restored.batches.stream().map(LineBatchSerializerTest::describe).toList())
        .isEqualTo(straight.batches.stream().map(LineBatchSerializerTest::describe).toList());
    for (int b = 0; b < 3; b++) {
      assertThat(restored.batches.get(b).scheduledNanos())
          .isEqualTo(straight.batches.get(b).scheduledNanos())
          .isEqualTo((runStart + 100L * b) * 1_000_000L);
    }
  }

  /** Polls a paced reader to its end, waiting on its availability; checks no batch left early. */
  private static void drainPaced(DatasetSourceReader reader, CollectingOutput output) throws Exception {
    InputStatus status;
    while ((status = reader.pollNext(output)) != InputStatus.END_OF_INPUT) {
      if (status == InputStatus.NOTHING_AVAILABLE) {
        reader.isAvailable().get(10, TimeUnit.SECONDS);
      } else {
        LineBatch last = output.batches.get(output.batches.size() - 1);
        // not early (the millisecond clock may lag the microsecond one the reader waits by)
        assertThat(last.scheduledNanos()).isLessThanOrEqualTo(System.currentTimeMillis() * 1_000_000L + 1_000_000L);
      }
    }
  }

  /** An interrupted task (Flink cancels so) does not sleep: it waits for the pacer, interrupt kept. */
  @Test
  void anInterruptedPollWaitsForThePacerAndKeepsTheInterrupt() throws Exception {
    Schedule schedule = new ConstantRateSchedule(20, 1_000);
    // the first batch is due in 500 ms, within an own wait of 10 s, however slow the set-up
    long runStart = System.currentTimeMillis() + 500;
    RunPlan plan = new RunPlan(new TestDataset(20), 0, schedule, new NowTimeline(schedule), 10)
        .ownWaitNanos(TimeUnit.SECONDS.toNanos(10));
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();
      Thread.currentThread().interrupt();
      InputStatus status = reader.pollNext(output);
      assertThat(Thread.interrupted()).as("the interrupt was kept").isTrue();
      assertThat(status).isEqualTo(InputStatus.NOTHING_AVAILABLE);
      assertThat(output.batches).isEmpty();
      reader.isAvailable().get(10, TimeUnit.SECONDS);
      drain(reader, output);
      assertThat(output.batches).hasSize(2);
    }
  }

  /**
   * The lag gauge is the next batch's lateness at the moment it is read, not at the last emit (so
   * it grows while a backend holds the reader back), 0 once the last batch is out; lines done
   * count from a restored stripe's position, so lines sent again are not counted twice.
   */
  @Test
  void theLagIsTheNextBatchsLatenessNowAndLinesDoneStartAtARestoredPosition() throws Exception {
    Schedule schedule = new ConstantRateSchedule(40, 20); // 10-line batches due every 500 ms
    long runStart = System.currentTimeMillis() - 10_000; // every batch is overdue
    RunPlan plan = new RunPlan(new TestDataset(40), 0, schedule, new NowTimeline(schedule), 10);
    RecordingReaderContext context = new RecordingReaderContext();
    CollectingOutput output = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, context)) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.MORE_AVAILABLE);
      long due = runStart + 500; // batch 1's
      long before = System.currentTimeMillis();
      long lag = (Long) context.metrics.gauges.get("scheduleLagMillis").getValue();
      long after = System.currentTimeMillis();
      assertThat(lag).isBetween(before - due - 1, after - due + 1);
      assertThat((Long) context.metrics.gauges.get("linesDone").getValue()).isEqualTo(10);
      drain(reader, output);
      assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
      assertThat((Long) context.metrics.gauges.get("scheduleLagMillis").getValue()).isZero();
      assertThat((Long) context.metrics.gauges.get("linesDone").getValue()).isEqualTo(40);
    }

    RecordingReaderContext restored = new RecordingReaderContext();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, restored)) {
      // stripe 1 of 2 restored at batch 3: its batch 1 (10 lines) was done
      reader.addSplits(List.of(new StripeSplit(1, 2, 3, runStart)));
      assertThat((Long) restored.metrics.gauges.get("linesDone").getValue()).isEqualTo(10);
      reader.notifyNoMoreSplits();
      drain(reader, new CollectingOutput());
      assertThat((Long) restored.metrics.gauges.get("linesDone").getValue()).isEqualTo(20);
    }
  }

  /**
   * Batches due 1 ms apart leave in rounds at least a pacing tick (5 ms by default) apart, several a round,
   * none before its due time: 40 batches over 40 ms take at most 40 / 5 + 2 wake-ups, not 40 (a
   * late wake-up on a busy machine only makes fewer). Batches further apart than the tick wake
   * on time, each: {@link #waitsForTheDueTimeOnATimerAndReportsMetrics}.
   */
  @Test
  void batchesDueCloserThanThePacingTickLeaveTogether() throws Exception {
    assertThat(RunPlan.DEFAULT_TICK_NANOS).isEqualTo(5_000_000L);
    assertThat(rounds(new ConstantRateSchedule(400, 10_000))).isBetween(1, 40 / 5 + 2);
  }

  /** Emits a paced run of 10-line batches; the rounds (wake-ups that emitted a batch) it took. */
  private static int rounds(Schedule schedule) throws Exception {
    long runStart = System.currentTimeMillis() + 100;
    // every wait through the pacer, whose wake-ups are counted here
    RunPlan plan = new RunPlan(new TestDataset((int) schedule.lines()), 0, schedule, new NowTimeline(schedule), 10)
        .ownWaitNanos(0);
    CollectingOutput output = new CollectingOutput();
    int rounds = 0;
    try (DatasetSourceReader reader = new DatasetSourceReader(plan, new RecordingReaderContext())) {
      reader.addSplits(List.of(new StripeSplit(0, 1, 0, runStart)));
      reader.notifyNoMoreSplits();
      InputStatus status = reader.pollNext(output);
      while (status != InputStatus.END_OF_INPUT) {
        if (status == InputStatus.NOTHING_AVAILABLE) {
          reader.isAvailable().get(10, TimeUnit.SECONDS);
          int before = output.batches.size();
          while ((status = reader.pollNext(output)) == InputStatus.MORE_AVAILABLE) {
            // every batch due now
          }
          long now = System.currentTimeMillis() * 1_000_000L;
          for (LineBatch b : output.batches.subList(before, output.batches.size())) {
            assertThat(b.scheduledNanos()).isLessThanOrEqualTo(now + 1_000_000L); // not early
          }
          if (output.batches.size() > before) {
            rounds++;
          }
        } else {
          status = reader.pollNext(output);
        }
      }
    }
    assertThat(output.batches).hasSize((int) (schedule.lines() / 10));
    return rounds;
  }

  private static RunPlan unpacedPlan(long lines, int batchSize) {
    TestDataset dataset = new TestDataset(1_000);
    Schedule schedule = ConstantRateSchedule.unpaced(lines);
    return new RunPlan(
        dataset, 100, schedule, new OriginalTimeline(dataset, 100, lines), batchSize);
  }

  private static void drain(DatasetSourceReader reader, CollectingOutput output)
      throws Exception {
    InputStatus status;
    do {
      status = reader.pollNext(output);
    } while (status == InputStatus.MORE_AVAILABLE);
  }
}
