package io.logbench.job.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.api.common.accumulators.SerializedListAccumulator;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.flink.streaming.api.operators.collect.CollectCoordinationResponse;
import org.apache.flink.streaming.api.operators.collect.CollectSinkAddressEvent;
import org.apache.flink.streaming.api.operators.collect.CollectSinkFunction;
import org.apache.flink.streaming.api.operators.collect.CollectSinkOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * {@link CollectSinks}' sink in Flink's operator test harness: closed without having been opened
 * (a restart attempt cancelled before it opened) it throws nothing, where Flink 2.2.1's own
 * collect sink throws FLINK-39330's NullPointerException; opened, it still hands every collected
 * element to the accumulator the client reads at the end. Records sent in chunks leave in full
 * chunks, before each checkpoint barrier and at the end of the input, each once and in order, and
 * reach the client's iterator one by one again.
 */
class CollectSinksTest {

  private static final long MAX_BATCH = 2L << 20;

  @Test
  void closedWithoutHavingBeenOpenedItThrowsNothing() throws Exception {
    CollectSinks.Operator<String> operator = new CollectSinks.Operator<>(StringSerializer.INSTANCE, MAX_BATCH, "acc");
    OneInputStreamOperatorTestHarness<String, Object> harness =
        new OneInputStreamOperatorTestHarness<>(operator, StringSerializer.INSTANCE);
    harness.setup(); // deployed, then cancelled before initializeState() and open()
    harness.close();
    assertThat(harness.getEnvironment().getAccumulatorRegistry().getUserMap())
        .as("no final results from an attempt that never opened").isEmpty();
  }

  @Test
  void flinksOwnCollectSinkStillThrowsThere() throws Exception {
    // What the workaround is for. When this stops throwing, the Flink in use has FLINK-39330's
    // fix: CollectSinks can go, and GenerateJob/VerifyJob can use collectAsync() again.
    OneInputStreamOperatorTestHarness<String, Object> harness = new OneInputStreamOperatorTestHarness<>(
        new CollectSinkOperator<>(StringSerializer.INSTANCE, MAX_BATCH, "acc"), StringSerializer.INSTANCE);
    harness.setup();
    assertThatThrownBy(harness::close).isInstanceOf(NullPointerException.class);
  }

  @Test
  void openedItHandsEveryElementToTheFinalAccumulator() throws Exception {
    CollectSinks.Operator<String> operator = new CollectSinks.Operator<>(StringSerializer.INSTANCE, MAX_BATCH, "acc");
    List<OperatorEvent> events = new ArrayList<>();
    operator.function().setOperatorEventGateway(events::add);
    OneInputStreamOperatorTestHarness<String, Object> harness =
        new OneInputStreamOperatorTestHarness<>(operator, StringSerializer.INSTANCE);
    harness.open();
    assertThat(events).as("the sink told its coordinator where its server listens")
        .singleElement().isInstanceOf(CollectSinkAddressEvent.class);
    for (String s : List.of("a", "b", "c")) {
      harness.processElement(new StreamRecord<>(s));
    }
    harness.close();

    Accumulator<?, ?> accumulator = harness.getEnvironment().getAccumulatorRegistry().getUserMap().get("acc");
    assertThat(accumulator).isInstanceOf(SerializedListAccumulator.class);
    @SuppressWarnings("unchecked")
    List<byte[]> serialized = SerializedListAccumulator.deserializeList(
        ((SerializedListAccumulator<byte[]>) accumulator).getLocalValue(), BytePrimitiveArraySerializer.INSTANCE);
    assertThat(serialized).hasSize(1);
    CollectCoordinationResponse response = CollectSinkFunction.deserializeAccumulatorResult(serialized.get(0)).f1;
    assertThat(response.getResults(StringSerializer.INSTANCE)).containsExactly("a", "b", "c");
  }

  /** The values of the records the harness's operator emitted so far, and forgets them. */
  private static List<List<String>> emitted(OneInputStreamOperatorTestHarness<String, List<String>> harness) {
    List<List<String>> out = new ArrayList<>();
    for (Object o : harness.getOutput()) {
      if (o instanceof StreamRecord<?> r) {
        @SuppressWarnings("unchecked")
        List<String> chunk = (List<String>) r.getValue();
        out.add(List.copyOf(chunk));
      }
    }
    harness.getOutput().clear();
    return out;
  }

  @Test
  void chunksLeaveFullBeforeEachBarrierAndAtTheEndOfTheInput() throws Exception {
    OneInputStreamOperatorTestHarness<String, List<String>> harness =
        new OneInputStreamOperatorTestHarness<>(new CollectSinks.Chunks<>(3), StringSerializer.INSTANCE);
    harness.open();
    for (String s : List.of("a", "b", "c", "d", "e", "f", "g")) {
      harness.processElement(new StreamRecord<>(s));
    }
    assertThat(emitted(harness)).containsExactly(List.of("a", "b", "c"), List.of("d", "e", "f"));

    harness.prepareSnapshotPreBarrier(1);
    assertThat(emitted(harness)).as("what is held leaves before the barrier").containsExactly(List.of("g"));
    harness.prepareSnapshotPreBarrier(2);
    assertThat(emitted(harness)).as("no empty chunk").isEmpty();

    harness.processElement(new StreamRecord<>("h"));
    harness.endInput();
    assertThat(emitted(harness)).containsExactly(List.of("h"));
    harness.close();
  }

  @Test
  void aChunkHoldsAtLeastOneRecord() {
    assertThatThrownBy(() -> new CollectSinks.Chunks<String>(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A chunk holds at least one record; got 0.");
  }

  @Test
  void theClientGetsTheChunksRecordsOneByOne() throws Exception {
    Iterator<List<String>> chunks = List.of(List.of("a", "b"), List.<String>of(), List.of("c")).iterator();
    boolean[] closed = {false};
    CloseableIterator<List<String>> inner = new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return chunks.hasNext();
      }

      @Override
      public List<String> next() {
        return chunks.next();
      }

      @Override
      public void close() {
        closed[0] = true;
      }
    };
    List<String> got = new ArrayList<>();
    try (CloseableIterator<String> it = new CollectSinks.Flattened<>(inner)) {
      it.forEachRemaining(got::add);
      assertThat(it.hasNext()).isFalse();
      assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
    }
    assertThat(got).containsExactly("a", "b", "c");
    assertThat(closed[0]).isTrue();
  }
}
