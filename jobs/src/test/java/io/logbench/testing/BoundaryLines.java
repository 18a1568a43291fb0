package io.logbench.testing;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.StreamCatalog;
import io.logbench.dataset.app.AppJsonStreams;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * Lines on both sides of window boundaries over two local days in America/Sao_Paulo (-03:00),
 * for the count readers' window mapping at 1m, 1h and 1d: the first and the last millisecond of
 * minutes, hours and days of the zone, and of the hours where a wrongly anchored day would start
 * (21:00Z, a VictoriaLogs bucket with the other offset sign, and 00:00Z, a UTC day), each with its
 * own number of copies so that a line counted one window off changes two counts. Line {@code i}
 * has sequence id {@code i} and the text {@code {"seq":i,"msg":"boundary"}} in stream {@code i %
 * 3} of {@link AppJsonStreams}; the expected counts come from plain floor arithmetic on the
 * times, never from a reader.
 */
public final class BoundaryLines implements Dataset {

  private static final long serialVersionUID = 1L;

  public static final ZoneId ZONE = ZoneId.of("America/Sao_Paulo");
  /** 2021-05-01T00:00:00-03:00: local midnight, 03:00Z. */
  public static final long FROM = 1_619_838_000_000L;
  public static final long MINUTE = 60_000L;
  public static final long HOUR = 3_600_000L;
  public static final long DAY = 86_400_000L;
  /** Two local days from {@link #FROM}. */
  public static final long TO = FROM + 2 * DAY;
  /** The window sizes every reader is checked at. */
  public static final List<Duration> SIZES = List.of(Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofDays(1));

  private static final long[][] TIMES_AND_COPIES = {
    {FROM, 1},
    {FROM + MINUTE - 1, 2},
    {FROM + MINUTE, 3},
    {FROM + HOUR - 1, 1},
    {FROM + HOUR, 2},
    {FROM + 18 * HOUR - 1, 3}, // 20:59:59.999Z
    {FROM + 18 * HOUR, 1}, // 21:00Z: a day bucket with the offset's sign flipped starts here
    {FROM + 21 * HOUR - 1, 2},
    {FROM + 21 * HOUR, 3}, // 00:00Z: a UTC day starts here
    {FROM + DAY - 1, 1},
    {FROM + DAY, 2}, // 2021-05-02T00:00-03:00
    {FROM + DAY + 1, 1},
    {FROM + DAY + HOUR - 1, 3},
    {FROM + DAY + HOUR, 1},
    {FROM + DAY + HOUR + MINUTE - 1, 2},
    {FROM + DAY + HOUR + MINUTE, 3},
    {FROM + 2 * DAY - 1, 1},
  };

  private final long[] millis;
  private final StreamCatalog streams = new AppJsonStreams(3);

  public BoundaryLines() {
    List<Long> out = new ArrayList<>();
    for (long[] tc : TIMES_AND_COPIES) {
      for (int c = 0; c < tc[1]; c++) {
        out.add(tc[0]);
      }
    }
    this.millis = out.stream().mapToLong(Long::longValue).toArray();
  }

  /** Lines in each window {@code [FROM + k * size, FROM + (k + 1) * size)} up to {@link #TO}. */
  public long[] expected(long sizeMillis) {
    long[] out = new long[Math.toIntExact((TO - FROM) / sizeMillis)];
    for (long t : millis) {
      out[(int) Math.floorDiv(t - FROM, sizeMillis)]++;
    }
    return out;
  }

  /**
   * Asserts that {@code reader}, of a backend holding these lines (and no other of the run),
   * counts each in its window at every size of {@link #SIZES}, and lists the ids of the first
   * local day, from its first millisecond to its last; {@code where} names the backend.
   */
  public void assertCountedInTheirWindows(String where, io.logbench.count.CountReader reader)
      throws java.io.IOException {
    for (Duration size : SIZES) {
      org.assertj.core.api.Assertions.assertThat(reader.counts(FROM, TO, size.toMillis()))
          .as("%s windows on %s", size, where).containsExactly(expected(size.toMillis()));
    }
    long firstDay = java.util.Arrays.stream(millis).filter(t -> t < FROM + DAY).count();
    org.assertj.core.api.Assertions.assertThat(reader.sequenceIds(FROM, FROM + DAY, 1_000)).as("ids on %s", where)
        .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(0, firstDay).boxed().toList());
  }

  /** The text of line {@code seq}. */
  public static String text(long seq) {
    return "{\"seq\":" + seq + ",\"msg\":\"boundary\"}";
  }

  /** Every line in one batch (batch id 0, sequence ids from 0). */
  public LineBatch batch() {
    LineBatch b = new LineBatch();
    b.reset(0, 0);
    LineCursor c = cursor(0);
    for (int i = 0; i < millis.length; i++) {
      c.next(b);
    }
    return b;
  }

  @Override
  public String name() {
    return "boundary-lines";
  }

  @Override
  public long size() {
    return millis.length;
  }

  @Override
  public long timestampMillis(long index) {
    return millis[Math.toIntExact(index)];
  }

  @Override
  public long countBefore(long epochMillis) {
    int n = 0;
    while (n < millis.length && millis[n] < epochMillis) {
      n++;
    }
    return n;
  }

  @Override
  public long endMillis() {
    return millis[millis.length - 1] + 1;
  }

  @Override
  public ZoneId zone() {
    return ZONE;
  }

  @Override
  public boolean linesCarrySeq() {
    return true;
  }

  @Override
  public StreamCatalog streams() {
    return streams;
  }

  @Override
  public LineCursor cursor(long fromIndex) {
    return new LineCursor() {
      private long at = fromIndex;

      @Override
      public long position() {
        return at;
      }

      @Override
      public void skipTo(long index) {
        at = index;
      }

      @Override
      public void next(LineBatch batch) {
        byte[] text = text(at).getBytes(StandardCharsets.UTF_8);
        batch.append(text, 0, text.length, timestampMillis(at), (int) (at % streams.size()));
        at++;
      }
    };
  }
}
