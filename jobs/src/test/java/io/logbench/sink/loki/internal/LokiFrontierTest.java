package io.logbench.sink.loki.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link LokiFrontier}'s two rules with a window of 10 ns: a stream that may be too far behind
 * goes alone, and a push that would put an unanswered one too far behind waits for its answer.
 */
class LokiFrontierTest {

  private static final long W = 10;

  private static LokiFrontier.Stream[] of(LokiFrontier.Stream... s) {
    return s;
  }

  private static long[] ns(long... v) {
    return v;
  }

  @Test
  void aStreamIsOneObjectPerKeyForEverySenderOfTheTarget() {
    LokiFrontier f = new LokiFrontier(W);
    LokiFrontier.Stream a = f.stream("{s=\"a\"}");
    assertThat(f.stream(new String("{s=\"a\"}"))).isSameAs(a);
    assertThat(f.stream("{s=\"b\"}")).isNotSameAs(a);
    assertThat(a).hasToString("{s=\"a\"}");
  }

  @Test
  void aStreamWhoseLinesMayBeTooFarBehindItsNewestGoesAloneAndTheOthersTogether() {
    LokiFrontier f = new LokiFrontier(W);
    LokiFrontier.Stream a = f.stream("a");
    LokiFrontier.Stream b = f.stream("b");
    LokiFrontier.Admission first = f.admit(of(a, b), ns(100, 100), ns(105, 130));
    assertThat(first.waitFor()).isNull();
    assertThat(first.alone()).containsExactly(false, false);
    assertThat(first.anyAlone()).isFalse();
    f.answered(first);
    assertThat(first.done()).isCompleted();

    // a's newest is 105: 95 is exactly the window behind, still safe; b's newest is 130: 119 is not
    LokiFrontier.Admission second = f.admit(of(a, b), ns(95, 119), ns(96, 140));
    assertThat(second.waitFor()).isNull();
    assertThat(second.alone()).containsExactly(false, true);
    assertThat(second.anyAlone()).isTrue();
    f.answered(second);

    // the newest so far is the largest ever sent, not the last push's: b's is 140
    LokiFrontier.Admission third = f.admit(of(b), ns(129), ns(129));
    assertThat(third.alone()).containsExactly(true);
  }

  @Test
  void aPushThatWouldPutAnUnansweredOneTooFarBehindWaitsForItsAnswerOnly() {
    LokiFrontier f = new LokiFrontier(W);
    LokiFrontier.Stream a = f.stream("a");
    LokiFrontier.Stream b = f.stream("b");
    LokiFrontier.Admission older = f.admit(of(a), ns(100), ns(101));
    LokiFrontier.Admission other = f.admit(of(b), ns(100), ns(101));

    // within the window of the unanswered push: goes at once
    LokiFrontier.Admission near = f.admit(of(a), ns(105), ns(110));
    assertThat(near.waitFor()).isNull();
    f.answered(near);

    // a's newest line 111 would make the unanswered push's 100 too far behind: it waits for that
    // push, and for no push of another stream
    LokiFrontier.Admission far = f.admit(of(a), ns(111), ns(111));
    assertThat(far.waitFor()).containsExactly(older.done());
    assertThat(far.done()).isNull();

    f.answered(older);
    assertThat(older.done()).isCompleted();
    LokiFrontier.Admission again = f.admit(of(a), ns(111), ns(111));
    assertThat(again.waitFor()).isNull();
    assertThat(again.alone()).containsExactly(false);
    f.answered(again);
    f.answered(other);
  }

  @Test
  void anAnsweredPushLeavesOnlyItsOwnEntriesOfAStream() {
    LokiFrontier f = new LokiFrontier(W);
    LokiFrontier.Stream a = f.stream("a");
    LokiFrontier.Admission first = f.admit(of(a), ns(100), ns(100));
    LokiFrontier.Admission second = f.admit(of(a), ns(100), ns(100));
    f.answered(second);
    // the first is still in flight: a push past its window waits for it alone
    assertThat(f.admit(of(a), ns(200), ns(200)).waitFor()).containsExactly(first.done());
    f.answered(first);
    assertThat(f.admit(of(a), ns(200), ns(200)).waitFor()).isNull();
  }
}
