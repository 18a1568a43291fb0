package io.logbench.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.LineIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Drill.of: missing and repeated ids of a window's range, nanosecond-offset ids mapped back. */
class DrillTest {

  @Test
  void missingAndDuplicateIdsOfTheRange() {
    Drill d = Drill.of(100, 110, List.of(100L, 101L, 103L, 103L, 104L, 106L, 107L, 108L, 109L, 109L, 109L), false, 10);
    assertThat(d.missing()).containsExactly(102L, 105L);
    assertThat(d.missingTotal()).isEqualTo(2);
    assertThat(d.duplicates()).isEqualTo(Map.of(103L, 2, 109L, 3));
    assertThat(d.strangers()).isEmpty();
  }

  @Test
  void listsAtMostTheLimitButCountsAll() {
    Drill d = Drill.of(0, 1000, List.of(5L, 7L), false, 3);
    assertThat(d.missing()).containsExactly(0L, 1L, 2L);
    assertThat(d.missingTotal()).isEqualTo(998);
  }

  @Test
  void idsFromNanosecondOffsetsAreMappedIntoTheWindowsRange() {
    long first = 3 * LineIds.MODULUS + 500_000;
    List<Long> observed = new ArrayList<>();
    for (long id = first; id < first + 600_000; id++) {
      if (id != first + 550_000) {
        observed.add(id % LineIds.MODULUS);
      }
    }
    observed.add((first + 10) % LineIds.MODULUS);
    Drill d = Drill.of(first, first + 600_000, observed, true, 10);
    assertThat(d.missing()).containsExactly(first + 550_000);
    assertThat(d.duplicates()).isEqualTo(Map.of(first + 10, 2));
  }

  @Test
  void nanosecondIdsOfAWindowOfMoreThanTheModulusCannotBeMapped() {
    Drill d = Drill.of(0, LineIds.MODULUS + 1, List.of(), true, 10);
    assertThat(d.note()).contains("cannot be mapped back");
    assertThat(d.missing()).isEmpty();
  }

  @Test
  void idsOutsideTheRangeAreListedApart() {
    Drill d = Drill.of(10, 12, List.of(10L, 11L, 99L), false, 10);
    assertThat(d.missing()).isEmpty();
    assertThat(d.strangers()).containsExactly(99L);
  }

  @Test
  void duplicatesARestoreSentAgainAreToldApartAndCountedInFull() {
    // ids 103 and 109 were sent again by a restore, 105 was not
    List<Long> observed = List.of(100L, 101L, 102L, 103L, 103L, 104L, 105L, 105L, 106L, 107L, 108L, 109L, 109L,
        109L, 42L);
    Drill d = Drill.of(100, 110, observed, false, 1, id -> id == 103 || id == 109);
    assertThat(d.replayed()).isEqualTo(Map.of(103L, 2)); // listed up to the limit
    assertThat(d.replayedCopies()).isEqualTo(1 + 2); // counted in full
    assertThat(d.duplicates()).isEqualTo(Map.of(105L, 2));
    assertThat(d.duplicateCopies()).isEqualTo(1);
    assertThat(d.strangersFound()).isEqualTo(1);
    assertThat(d.complete()).isTrue();
  }

  @Test
  void withoutRestoreRecordsEveryRepeatIsADuplicate() {
    Drill d = Drill.of(100, 103, List.of(100L, 101L, 101L, 102L, 102L, 102L), false, 10);
    assertThat(d.replayed()).isEmpty();
    assertThat(d.duplicateCopies()).isEqualTo(3);
    assertThat(d.replayedCopies()).isZero();
  }
}
