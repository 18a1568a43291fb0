package io.logbench.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.count.VisibilityProbe;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The operator's threads: its polls never run on the task thread, and the end of input waits for them. */
class VisibilityOperatorTest {

  /** 1,000 lines, one per millisecond from 1,000,000 ms. */
  private static final AppJsonDataset DATASET =
      AppJsonDataset.builder().lines(1_000).streams(2).startMillis(1_000_000).rate(1_000).build();

  /** A backend that holds every line: each request is answered at once, on the thread that made it. */
  private static class Holding implements VisibilityProbe {
    final List<Thread> askedOn = new CopyOnWriteArrayList<>();
    volatile boolean closed;

    @Override
    public Reach reach() {
      return Reach.LINES;
    }

    @Override
    public void countSamples(List<Sample> samples, Answer answer) {
      askedOn.add(Thread.currentThread());
      answer.counted(samples.stream().mapToLong(Sample::lines).toArray());
    }

    @Override
    public void countRun(long fromMillis, long toMillis, long windowMillis, Answer answer) {
      askedOn.add(Thread.currentThread());
      answer.counted(new long[] {1_000}); // every line of the run
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** A probe with a bug: its requests throw on the thread that makes them. */
  private static final class Throwing extends Holding {
    @Override
    public void countSamples(List<Sample> samples, Answer answer) {
      throw new IllegalArgumentException("a bug in the probe");
    }
  }

  /** A backend that is only polled. */
  private static final class ProbeOnly implements BackendSpec {
    private static final long serialVersionUID = 1L;
    private final transient Holding probe;

    ProbeOnly(Holding probe) {
      this.probe = probe;
    }

    @Override
    public String kind() {
      return "test";
    }

    @Override
    public String name() {
      return "b";
    }

    @Override
    public BatchSender open(RunContext run) {
      throw new UnsupportedOperationException("only polled");
    }

    @Override
    public VisibilityProbe openProbe(RunContext run) {
      return probe;
    }
  }

  /** All of the dataset's lines as batch {@code n} of 100 lines, acknowledged. */
  private static BatchOutcome acked(long n) {
    return new BatchOutcome("b", n, n * 100, 100, BatchOutcome.Status.ACKED, 200, 1, 1, 1_000_000, 1_000_000,
        List.of(new BatchOutcome.WindowTally(0, 100, 100, Map.of())));
  }

  private static VisibilityOperator operator(Holding probe) {
    return new VisibilityOperator(new ProbeOnly(probe), RunContext.of(DATASET, 0),
        new VisibilitySettings(1, Duration.ofMillis(10), Duration.ofSeconds(30)), new long[] {1_000_000, 1_001_000},
        new WindowGrid(0, 60_000));
  }

  @Test
  void pollsRunOnTheVisibilityThreadAndTheEndOfInputWaitsForThem() throws Exception {
    Holding probe = new Holding();
    VisibilityOperator operator = operator(probe);
    try (OneInputStreamOperatorTestHarness<BatchOutcome, Void> h = new OneInputStreamOperatorTestHarness<>(operator)) {
      h.open();
      for (long n = 0; n < 10; n++) {
        h.processElement(new StreamRecord<>(acked(n)));
      }
      h.endInput(); // takes the task's mails until the samples and the run's count settle

      Accumulator<?, ?> reports = operator.getRuntimeContext().getAccumulator(VisibilityOperator.ACCUMULATOR + "b");
      VisibilityReport report = (VisibilityReport) ((List<?>) reports.getLocalValue()).get(0);
      assertThat(report.sampled()).isEqualTo(10);
      assertThat(report.visible()).isEqualTo(10);
      assertThat(report.lastLineNote()).isEmpty();
      assertThat(probe.askedOn).isNotEmpty().allSatisfy(t -> {
        assertThat(t).isNotSameAs(Thread.currentThread());
        assertThat(t.getName()).isEqualTo("logbench-visibility-b");
      });
    }
    assertThat(probe.closed).isTrue();
  }

  @Test
  void anExceptionOnTheVisibilityThreadFailsTheTaskInsteadOfLeavingItWaiting() throws Exception {
    try (OneInputStreamOperatorTestHarness<BatchOutcome, Void> h =
        new OneInputStreamOperatorTestHarness<>(operator(new Throwing()))) {
      h.open();
      h.processElement(new StreamRecord<>(acked(0)));
      // the first round throws; the end of input is woken and fails (without the wake-up it
      // would wait for mails that never come)
      assertThatThrownBy(h::endInput)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("The visibility polls of backend b stopped")
          .hasRootCauseMessage("a bug in the probe");
    }
  }
}
