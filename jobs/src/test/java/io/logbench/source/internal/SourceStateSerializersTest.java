package io.logbench.source.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.source.internal.StripeSplit;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Round trips and version checks of the split and enumerator-state serializers. */
class SourceStateSerializersTest {

  @Test
  void splitRoundTrip() throws IOException {
    StripeSplitSerializer serializer = StripeSplitSerializer.INSTANCE;
    StripeSplit split = new StripeSplit(3, 4, 4_000_000_003L, 1_700_000_000_123L);

    StripeSplit back =
        serializer.deserialize(serializer.getVersion(), serializer.serialize(split));

    assertThat(back).isEqualTo(split);
    assertThat(back.splitId()).isEqualTo("stripe-3");
  }

  @Test
  void aSplitKeepsTheCheckpointItsStateWasTakenInAndVersionOneIsStillRead() throws IOException {
    StripeSplitSerializer serializer = StripeSplitSerializer.INSTANCE;
    StripeSplit split = new StripeSplit(1, 2, 9, 1_700_000_000_123L, 42);
    StripeSplit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
    assertThat(back.checkpointId()).isEqualTo(42);
    assertThat(back).isEqualTo(split.at(9)); // equal by position

    java.io.ByteArrayOutputStream v1 = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream out = new java.io.DataOutputStream(v1);
    out.writeInt(1);
    out.writeInt(2);
    out.writeLong(9);
    out.writeLong(1_700_000_000_123L);
    StripeSplit old = serializer.deserialize(1, v1.toByteArray());
    assertThat(old).isEqualTo(split);
    assertThat(old.checkpointId()).isEqualTo(-1);
  }

  @Test
  void splitOfAnUnknownVersionIsRefused() throws IOException {
    StripeSplitSerializer serializer = StripeSplitSerializer.INSTANCE;
    byte[] bytes = serializer.serialize(new StripeSplit(0, 1, 0, 0));

    assertThatThrownBy(() -> serializer.deserialize(serializer.getVersion() + 1, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void splitMustOwnItsBatch() {
    assertThatThrownBy(() -> new StripeSplit(1, 4, 6, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Batch 6 does not belong to stripe 1 of 4.");
    assertThatThrownBy(() -> new StripeSplit(4, 4, 4, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void enumeratorStateRoundTrip() throws IOException {
    EnumeratorStateSerializer serializer = EnumeratorStateSerializer.INSTANCE;
    EnumeratorState state =
        new EnumeratorState(
            1_700_000_000_000L,
            3,
            List.of(new StripeSplit(0, 3, 9, 1_700_000_000_000L), new StripeSplit(2, 3, 2, 1)));

    EnumeratorState back =
        serializer.deserialize(serializer.getVersion(), serializer.serialize(state));

    assertThat(back).isEqualTo(state);
    assertThat(back.started()).isTrue();
  }

  @Test
  void notStartedEnumeratorStateRoundTrip() throws IOException {
    EnumeratorStateSerializer serializer = EnumeratorStateSerializer.INSTANCE;
    EnumeratorState state = new EnumeratorState(EnumeratorState.NOT_STARTED, 4, List.of());

    EnumeratorState back =
        serializer.deserialize(serializer.getVersion(), serializer.serialize(state));

    assertThat(back).isEqualTo(state);
    assertThat(back.started()).isFalse();
  }

  @Test
  void enumeratorStateOfAnUnknownVersionIsRefused() throws IOException {
    EnumeratorStateSerializer serializer = EnumeratorStateSerializer.INSTANCE;
    byte[] bytes = serializer.serialize(new EnumeratorState(0, 1, List.of()));

    assertThatThrownBy(() -> serializer.deserialize(0, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 0");
  }
}
