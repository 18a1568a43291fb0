package io.logbench.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A backend's restore records as the verifier and the summary read them. */
class ReplaysTest {

  private static final RestoreRecord SOURCE = new RestoreRecord(RestoreRecord.SOURCE, 1_700_000_000_000L, "vl", 0,
      -1, 3, List.of(new RestoreRecord.StripePosition(0, 2, 40, 44)),
      List.of(ReplayedRange.stripe(40, 44, 2, 100, 0, 10_000)));
  private static final RestoreRecord IN_FLIGHT = new RestoreRecord(RestoreRecord.IN_FLIGHT, 1_700_000_000_050L,
      "vl", 0, 1, 3, List.of(), List.of(ReplayedRange.batch(38, 3_800, 100)));
  private static final RestoreRecord OTHER = new RestoreRecord(RestoreRecord.SOURCE, 1_700_000_000_000L, "loki", 0,
      -1, 3, List.of(), List.of(ReplayedRange.batch(1, 100, 100)));

  @Test
  void countsAndFindsTheLinesOfOneBackendsRestores() {
    Replays r = Replays.of(List.of(SOURCE, OTHER, IN_FLIGHT), "vl");
    assertThat(r.restores()).isEqualTo(1);
    assertThat(r.batches()).isEqualTo(3 + 1); // 40, 42, 44 and in-flight 38
    assertThat(r.lines()).isEqualTo(400);
    assertThat(r.contains(3_850)).isTrue();
    assertThat(r.contains(4_150)).isFalse(); // batch 41: the other stripe
    assertThat(r.contains(150)).isFalse(); // loki's
    assertThat(r.linesIn(3_000, 5_000)).isEqualTo(400);
    assertThat(r.linesIn(4_000, 4_100)).isEqualTo(100);
    assertThat(r.describe(3_000, 5_000, 5)).isEqualTo(
        "seq 4000-4499 (batches 40-44, every 2nd) by source subtask 0 restored at 2023-11-14T22:13:20Z from"
            + " checkpoint 3; seq 3800-3899 (in-flight batch 38) by in-flight subtask 0 restored at"
            + " 2023-11-14T22:13:20.050Z from checkpoint 3");
    assertThat(r.describe(3_000, 5_000, 1)).endsWith("; and 1 more range(s)");
    assertThat(Replays.none().isEmpty()).isTrue();
  }
}
