package io.logbench.dataset.nginx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The seed script's Mersenne Twister state every {@link #EVERY} lines, recorded by one fast pass
 * that only draws (no formatting), plus the byte size of every minute's lines. A cursor for any
 * line starts from the nearest state before it and skips the rest, so slices run in parallel.
 *
 * <p>The pass is serial and runs once per JVM and seed, only as far as the lines asked for. A
 * reader that drew every line from one recorded state to the next (counting by key does) may
 * {@link #offer} the state it reached, so that the next reader starts there without the pass
 * drawing those lines again; when the pass comes by later (for byte sizes) it checks that the
 * offered state is the one it draws.
 */
final class PythonCheckpoints {

  /** Lines between two recorded states. */
  static final long EVERY = 1L << 20;

  private static final ConcurrentHashMap<Long, PythonCheckpoints> CACHE = new ConcurrentHashMap<>();

  private final NginxPrelude prelude;
  private final int[] statusList;
  private final int[] pathList;
  private final int[] weights;
  private final List<int[]> states = new ArrayList<>();
  private final long[] minuteBytes = new long[NginxPrelude.MINUTES];
  /** The pass has drawn every line before this one. */
  private long passed;
  private int passMinute;
  private final PythonRandom pass;

  private PythonCheckpoints(NginxPrelude prelude) {
    this.prelude = prelude;
    this.statusList = prelude.statusList();
    this.pathList = prelude.pathList();
    this.weights = NginxMonthDataset.lineLengthByPathIndex(pathList);
    this.pass = PythonRandom.fromState(prelude.loopState());
    states.add(pass.state());
  }

  static PythonCheckpoints of(NginxMonthDataset dataset) {
    return CACHE.computeIfAbsent(dataset.seed(), s -> new PythonCheckpoints(NginxPrelude.of(s)));
  }

  /** A generator positioned at line {@code index}'s draws. */
  PythonRandom randomAt(long index) {
    int[] state;
    long at;
    synchronized (this) {
      int c = (int) (index / EVERY);
      if (c >= states.size()) {
        advanceTo(index);
      }
      state = states.get(c);
      at = c * EVERY;
    }
    PythonRandom r = PythonRandom.fromState(state);
    r.skipPairs(index - at, statusList.length, pathList.length, weights);
    return r;
  }

  /** True when the state at every multiple of {@link #EVERY} up to {@code index} is recorded. */
  synchronized boolean recordedTo(long index) {
    return index / EVERY < states.size();
  }

  /**
   * Records {@code state}, reached by drawing every line from the last recorded state up to line
   * {@code index}, if it is the next state to record (index the next multiple of {@link #EVERY});
   * otherwise does nothing.
   */
  synchronized void offer(long index, int[] state) {
    if (index % EVERY == 0 && index / EVERY == states.size() && index <= prelude.totalLines()) {
      states.add(state.clone());
    }
  }

  /** Byte size of minute {@code m}'s lines (no separators). */
  synchronized long minuteBytes(int m) {
    advanceTo(prelude.linesBefore(m + 1));
    return minuteBytes[m];
  }

  private void advanceTo(long index) {
    long target = Math.min(prelude.totalLines(), Math.max(index, 0));
    while (passed < target) {
      while (prelude.linesBefore(passMinute + 1) <= passed) {
        passMinute++; // finished or empty minutes
      }
      long minuteEnd = prelude.linesBefore(passMinute + 1);
      long nextState = (passed / EVERY + 1) * EVERY;
      long stop = Math.min(minuteEnd, nextState);
      minuteBytes[passMinute] +=
          pass.skipPairs(stop - passed, statusList.length, pathList.length, weights);
      passed = stop;
      if (passed == nextState) {
        int c = (int) (passed / EVERY);
        if (c == states.size()) {
          states.add(pass.state());
        } else if (!Arrays.equals(states.get(c), pass.state())) {
          throw new IllegalStateException("The generator state offered for line " + passed
              + " is not the one the skip pass draws there.");
        }
      }
    }
  }
}
