package io.logbench.sink.loki.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.SendResult.Rejection;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/**
 * {@link LokiPushErrors} on bodies Loki 3.4.6 answered, recorded from pushes to the real server:
 * streams {@code {job="probe", s="s0".."s3"}} whose newest entry was 2021-05-01T03:00:00Z, so
 * entries before 02:00:00Z were too far behind. Each batch is built as the recorded push was, so
 * its lines have the nanoseconds the bodies list.
 */
class LokiPushErrorsTest {

  static final long T0 = 1619827200000L; // 2021-05-01T00:00:00Z
  static final long H = 3_600_000L;

  static LineBatch batch(long seq0, long[] millis, int[] streams) {
    LineBatch b = new LineBatch();
    b.reset(0, seq0);
    for (int k = 0; k < millis.length; k++) {
      byte[] t = ("line " + (seq0 + k)).getBytes(StandardCharsets.UTF_8);
      b.append(t, 0, t.length, millis[k], streams[k]);
    }
    return b;
  }

  static BitSet bits(int... ks) {
    BitSet b = new BitSet();
    for (int k : ks) {
      b.set(k);
    }
    return b;
  }

  static String behind(String goTime, String entry, String cutoff) {
    return "entry with timestamp " + goTime + " +0000 UTC ignored, reason: 'entry too far behind, entry timestamp is: "
        + entry + ", oldest acceptable timestamp is: " + cutoff + "',\n";
  }

  static LineBatch fourStreams() {
    // s0 2 behind, s1 3 behind, s2 1 in its window, s3 (the push's last stream) 1 behind
    return batch(40, new long[] {T0 + 8, T0 + 9, T0 + 10, T0 + 11, T0 + 12, T0 + 3 * H + 40, T0 + 13},
        new int[] {0, 0, 1, 1, 1, 2, 3});
  }

  @Test
  void aPushOfFourStreamsIsAnsweredForItsLastStreamAndOnlyThoseLinesAreNamed() {
    String body = behind("2021-05-01 00:00:00.013000047", "2021-05-01T00:00:00Z", "2021-05-01T02:00:00Z")
        + "user 't1-probefalse', total ignored: 1 out of 1 for stream: {job=\"probe\", s=\"s3\", service_name=\"probe\"}\n";
    SendResult r = LokiPushErrors.classify(fourStreams(), body);
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.rejections()).containsExactly(new Rejection(LokiPushErrors.TOO_FAR_BEHIND, 1, bits(6)));
    // what the body cannot say: Loki dropped the 5 lines of s0 and s1 as well (LokiFrontier is
    // what keeps streams that may be too far behind out of a push of several streams)
    assertThat(r.accepted()).isEqualTo(6);
  }

  @Test
  void pastTheTenListedEntriesTheRestAreNamedByTheCutoff() {
    long[] m = new long[30];
    int[] s = new int[30];
    for (int k = 0; k < 25; k++) {
      m[k] = T0 + 100 + k * 1000;
      s[k] = 2;
    }
    for (int k = 25; k < 30; k++) {
      m[k] = T0 + 3 * H + 100 + k;
      s[k] = 2;
    }
    String[] listed = {"00:00:00.100000101", "00:00:01.100000102", "00:00:02.100000103", "00:00:03.100000104",
        "00:00:04.100000105", "00:00:05.100000106", "00:00:06.100000107", "00:00:07.100000108",
        "00:00:08.100000109", "00:00:09.10000011"};
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < listed.length; i++) {
      body.append(behind("2021-05-01 " + listed[i], "2021-05-01T00:00:0" + i + "Z", "2021-05-01T02:00:00Z"));
    }
    body.append("user 't1-probefalse', total ignored: 25 out of 30 for stream: {job=\"probe\", s=\"s2\","
        + " service_name=\"probe\"}\n");
    SendResult r = LokiPushErrors.classify(batch(100, m, s), body.toString());
    BitSet first25 = new BitSet();
    first25.set(0, 25);
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(5);
    assertThat(r.rejections()).containsExactly(new Rejection(LokiPushErrors.TOO_FAR_BEHIND, 25, first25));
  }

  @Test
  void aLineInTheCutoffsOwnSecondIsNamedWhenTheListSaysSo() {
    // newest 03:00:00.5: the real cutoff is 02:00:00.5, printed as 02:00:00Z
    LineBatch b = batch(410, new long[] {T0 + 2 * H - 500, T0 + 2 * H + 200, T0 + 2 * H + 700}, new int[] {3, 3, 3});
    String body = behind("2021-05-01 01:59:59.500000411", "2021-05-01T01:59:59Z", "2021-05-01T02:00:00Z")
        + behind("2021-05-01 02:00:00.200000412", "2021-05-01T02:00:00Z", "2021-05-01T02:00:00Z")
        + "user 't1-probefalse', total ignored: 2 out of 3 for stream: {job=\"probe\", s=\"s3\", service_name=\"probe\"}\n";
    SendResult r = LokiPushErrors.classify(b, body);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.rejections()).containsExactly(new Rejection(LokiPushErrors.TOO_FAR_BEHIND, 2, bits(0, 1)));
  }

  @Test
  void aPushOfSomeLinesOfABatchIsReadForThoseLinesOnly() {
    // s1's lines of the four-stream batch, sent as a push of their own
    String body = behind("2021-05-01 00:00:00.010000043", "2021-05-01T00:00:00Z", "2021-05-01T02:00:00Z")
        + behind("2021-05-01 00:00:00.011000044", "2021-05-01T00:00:00Z", "2021-05-01T02:00:00Z")
        + behind("2021-05-01 00:00:00.012000045", "2021-05-01T00:00:00Z", "2021-05-01T02:00:00Z")
        + "user 'fake', total ignored: 3 out of 3 for stream: {job=\"probe\", s=\"s1\", service_name=\"probe\"}\n";
    SendResult r = LokiPushErrors.classify(fourStreams(), bits(2, 3, 4), body);
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.accepted()).isZero();
    assertThat(r.rejections()).containsExactly(new Rejection(LokiPushErrors.TOO_FAR_BEHIND, 3, bits(2, 3, 4)));
  }

  @Test
  void theLastStreamIsTheLastToAppearAmongTheLinesSent() {
    LineBatch b = batch(0, new long[] {T0, T0 + 1, T0 + 2, T0 + 3}, new int[] {1, 0, 1, 2});
    assertThat(LokiPushErrors.lastStream(b, bits(0, 1, 2, 3))).isEqualTo(bits(3));
    assertThat(LokiPushErrors.lastStream(b, bits(0, 1, 2))).isEqualTo(bits(1));
  }
}
