package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class SerializationTest {

  @Test
  void schedulesAndTimelinesSurviveJavaSerialization() throws Exception {
    ArrayDataset dataset = ArrayDataset.of(1_000, i -> 1_000_000 + i * 3);
    List<Schedule> schedules =
        List.of(
            new ConstantRateSchedule(0.3, 100),
            LadderSchedule.seed000(1_000),
            new ReplaySchedule(dataset, 0, 1_000, 2.5),
            new UnpacedSchedule(1_000));
    for (Schedule schedule : schedules) {
      Schedule copy = roundTrip(schedule);
      assertThat(copy.toString()).isEqualTo(schedule.toString());
      assertThat(copy.dueNanos(99)).isEqualTo(schedule.dueNanos(99));
      assertThat(copy.dueBy(copy.durationNanos() / 2))
          .isEqualTo(schedule.dueBy(schedule.durationNanos() / 2));
    }
    ExpectedCounts counts =
        new ExpectedCounts(
            Timelines.of(TimestampMode.COMPRESSED, dataset, 0, schedules.get(1)), 5_000);
    ExpectedCounts copy = roundTrip(counts);
    assertThat(copy.windows(5_000, 6_000, 100)).isEqualTo(counts.windows(5_000, 6_000, 100));
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }
}
