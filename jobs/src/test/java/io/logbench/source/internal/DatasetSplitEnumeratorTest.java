package io.logbench.source.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.source.internal.StripeSplit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Assignment, run start and restore of {@link DatasetSplitEnumerator}. */
class DatasetSplitEnumeratorTest {

  private static final long START = 1_700_000_000_000L;

  @Test
  void assignsStripesBySubtaskAndSignalsTheEnd() {
    FakeEnumeratorContext context = new FakeEnumeratorContext(2);
    DatasetSplitEnumerator enumerator = fresh(context, 3, START);

    enumerator.addReader(0);
    enumerator.addReader(1);

    assertThat(context.assignedTo(0))
        .containsExactly(new StripeSplit(0, 3, 0, START), new StripeSplit(2, 3, 2, START));
    assertThat(context.assignedTo(1)).containsExactly(new StripeSplit(1, 3, 1, START));
    assertThat(context.noMoreSplits).containsExactly(0, 1);
    assertThat(enumerator.snapshotState(1).unassigned()).isEmpty();
  }

  @Test
  void readersWithoutStripesOnlyGetTheEnd() {
    FakeEnumeratorContext context = new FakeEnumeratorContext(4);
    DatasetSplitEnumerator enumerator = fresh(context, 2, START);

    enumerator.addReader(3);

    assertThat(context.assigned).isEmpty();
    assertThat(context.noMoreSplits).containsExactly(3);
  }

  @Test
  void picksTheRunStartOnceWhenTheFirstReaderRegisters() {
    FakeEnumeratorContext context = new FakeEnumeratorContext(2);
    DatasetSplitEnumerator enumerator = fresh(context, 2, EnumeratorState.NOT_STARTED);
    assertThat(enumerator.snapshotState(1).started()).isFalse();

    long before = System.currentTimeMillis();
    enumerator.addReader(0);
    long after = System.currentTimeMillis();

    EnumeratorState state = enumerator.snapshotState(2);
    assertThat(state.started()).isTrue();
    assertThat(state.runStartMillis()).isBetween(before, after);
    assertThat(state.unassigned())
        .containsExactly(new StripeSplit(1, 2, 1, state.runStartMillis()));
    assertThat(context.assignedTo(0))
        .containsExactly(new StripeSplit(0, 2, 0, state.runStartMillis()));
  }

  @Test
  void aRestoredEnumeratorKeepsTheOriginalRunStart() {
    long original = START - 60_000;
    EnumeratorState state =
        new EnumeratorState(original, 2, List.of(new StripeSplit(1, 2, 1, original)));
    FakeEnumeratorContext context = new FakeEnumeratorContext(2);
    DatasetSplitEnumerator enumerator =
        new DatasetSplitEnumerator(context, state, EnumeratorState.NOT_STARTED);

    enumerator.addReader(1);
    enumerator.addReader(0);

    assertThat(context.assignedTo(1)).containsExactly(new StripeSplit(1, 2, 1, original));
    assertThat(context.assignedTo(0)).isEmpty();
    assertThat(enumerator.snapshotState(3).runStartMillis()).isEqualTo(original);
  }

  @Test
  void splitsAddedBackGoToTheReRegisteredReaderAtTheirPosition() {
    FakeEnumeratorContext context = new FakeEnumeratorContext(2);
    DatasetSplitEnumerator enumerator = fresh(context, 2, START);
    enumerator.addReader(0);
    enumerator.addReader(1);

    StripeSplit progressed = new StripeSplit(1, 2, 7, START);
    enumerator.addSplitsBack(List.of(progressed), 1);
    assertThat(enumerator.snapshotState(4).unassigned()).containsExactly(progressed);
    enumerator.addReader(1);

    assertThat(context.assignedTo(1)).containsExactly(new StripeSplit(1, 2, 1, START), progressed);
    assertThat(enumerator.snapshotState(5).unassigned()).isEmpty();
  }

  private static DatasetSplitEnumerator fresh(
      FakeEnumeratorContext context, int stripes, long fixedStart) {
    return new DatasetSplitEnumerator(
        context, new EnumeratorState(EnumeratorState.NOT_STARTED, stripes, List.of()), fixedStart);
  }
}
