package io.logbench.dataset.nginx;

import java.util.Arrays;

/**
 * CPython's {@code random.Random}: MT19937 seeded with {@code init_by_array}, and the methods the
 * seed 004 script calls ({@code random}, {@code randint}, {@code choice}'s {@code _randbelow}),
 * drawing exactly the 32-bit words CPython draws, so the stream is the same as the script's.
 */
public final class PythonRandom {

  static final int N = 624;
  private static final int M = 397;
  private static final int MATRIX_A = 0x9908b0df;
  private static final int UPPER_MASK = 0x80000000;
  private static final int LOWER_MASK = 0x7fffffff;

  private final int[] mt = new int[N];
  private int mti;

  /** Like {@code random.seed(seed)} for a non-negative or negative int (CPython uses abs). */
  public PythonRandom(long seed) {
    long n = Math.abs(seed);
    int[] key = (n >>> 32) == 0 ? new int[] {(int) n} : new int[] {(int) n, (int) (n >>> 32)};
    initByArray(key);
  }

  private PythonRandom(int[] state, int index) {
    System.arraycopy(state, 0, mt, 0, N);
    this.mti = index;
  }

  /** A generator in a saved state (see {@link #state()}). */
  public static PythonRandom fromState(int[] stateWithIndex) {
    if (stateWithIndex.length != N + 1) {
      throw new IllegalArgumentException("A Mersenne Twister state has 625 ints, got " + stateWithIndex.length);
    }
    return new PythonRandom(stateWithIndex, stateWithIndex[N]);
  }

  /** The 624 state words and the index, as {@code random.getstate()[1]} holds them. */
  public int[] state() {
    int[] s = Arrays.copyOf(mt, N + 1);
    s[N] = mti;
    return s;
  }

  private void initGenrand(int s) {
    mt[0] = s;
    for (mti = 1; mti < N; mti++) {
      mt[mti] = 1812433253 * (mt[mti - 1] ^ (mt[mti - 1] >>> 30)) + mti;
    }
  }

  private void initByArray(int[] key) {
    initGenrand(19650218);
    int i = 1;
    int j = 0;
    for (int k = Math.max(N, key.length); k > 0; k--) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >>> 30)) * 1664525)) + key[j] + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) {
        j = 0;
      }
    }
    for (int k = N - 1; k > 0; k--) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >>> 30)) * 1566083941)) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    mti = N;
  }

  private void twist() {
    int kk = 0;
    int y;
    for (; kk < N - M; kk++) {
      y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
      mt[kk] = mt[kk + M] ^ (y >>> 1) ^ ((y & 1) * MATRIX_A);
    }
    for (; kk < N - 1; kk++) {
      y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
      mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ ((y & 1) * MATRIX_A);
    }
    y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
    mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ ((y & 1) * MATRIX_A);
    mti = 0;
  }

  /** {@code genrand_uint32}, as an int holding the unsigned 32 bits. */
  public int nextWord() {
    if (mti >= N) {
      twist();
    }
    int y = mt[mti++];
    y ^= (y >>> 11);
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= (y >>> 18);
    return y;
  }

  /** {@code getrandbits(k)} for 1 <= k <= 32. */
  public long getrandbits(int k) {
    return (nextWord() & 0xffffffffL) >>> (32 - k);
  }

  /**
   * {@code _randbelow(n)} (the getrandbits variant), as {@code choice}, {@code randint} and
   * {@code sample} use it: k = n.bit_length() bits, drawn again while the result is >= n.
   */
  public int randbelow(int n) {
    if (n <= 0) {
      throw new IllegalArgumentException("randbelow needs n >= 1, got " + n);
    }
    int shift = Integer.numberOfLeadingZeros(n); // 32 - bit_length(n)
    long bound = n;
    long r = (nextWord() & 0xffffffffL) >>> shift;
    while (r >= bound) {
      r = (nextWord() & 0xffffffffL) >>> shift;
    }
    return (int) r;
  }

  /** {@code randint(a, b)}: a + randbelow(b - a + 1). */
  public int randint(int a, int b) {
    return a + randbelow(b - a + 1);
  }

  /** {@code random()}: 53 bits from two words. */
  public double random() {
    long a = (nextWord() & 0xffffffffL) >>> 5;
    long b = (nextWord() & 0xffffffffL) >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  /** {@code sample(range(n), k)} indices, as CPython 3.x draws them for the set-based branch. */
  public int[] sampleIndices(int n, int k) {
    int setsize = 21;
    if (k > 5) {
      setsize += (int) Math.pow(4, Math.ceil(Math.log(k * 3) / Math.log(4)));
    }
    int[] result = new int[k];
    if (n <= setsize) {
      int[] pool = new int[n];
      for (int i = 0; i < n; i++) {
        pool[i] = i;
      }
      for (int i = 0; i < k; i++) {
        int j = randbelow(n - i);
        result[i] = pool[j];
        pool[j] = pool[n - i - 1];
      }
    } else {
      java.util.Set<Integer> selected = new java.util.HashSet<>();
      for (int i = 0; i < k; i++) {
        int j = randbelow(n);
        while (selected.contains(j)) {
          j = randbelow(n);
        }
        selected.add(j);
        result[i] = j;
      }
    }
    return result;
  }

  /**
   * Skips {@code lines} lines of the script's loop, each two {@code choice} calls (over lists of
   * {@code n1} and {@code n2} entries), adding the second choice's {@code weights} into the
   * returned sum (the byte length contributed by the chosen path, for sizing a slice). The hot
   * loop of the skip pass: it tempers a whole block of 624 words at once and then only compares.
   */
  public long skipPairs(long lines, int n1, int n2, int[] weights2) {
    final int s1 = Integer.numberOfLeadingZeros(n1);
    final int s2 = Integer.numberOfLeadingZeros(n2);
    final int[] out = this.block;
    int idx = mti;
    if (idx < N) {
      temperBlock(idx); // the rest of the current block, state unchanged
    }
    long sum = 0;
    for (long l = 0; l < lines; l++) {
      int r;
      do {
        if (idx >= N) {
          twist();
          temperBlock(0);
          idx = 0;
        }
        r = out[idx++] >>> s1;
      } while (r >= n1);
      do {
        if (idx >= N) {
          twist();
          temperBlock(0);
          idx = 0;
        }
        r = out[idx++] >>> s2;
      } while (r >= n2);
      sum += weights2[r];
    }
    mti = idx;
    return sum;
  }

  /**
   * Draws {@code lines} lines of the script's loop as {@link #skipPairs} does, each two {@code
   * choice} calls, over lists of {@code values1.length} and {@code values2.length} entries, and
   * counts what they chose: {@code hits1[values1[r1]]} and {@code hits2[values2[r2]]} go up by one
   * for the chosen indexes {@code r1} and {@code r2}. The same draws as {@link #skipPairs} (kept
   * as a second loop so that neither hot loop pays for the other's bookkeeping).
   */
  public void countPairs(long lines, int[] values1, long[] hits1, int[] values2, long[] hits2) {
    final int n1 = values1.length;
    final int n2 = values2.length;
    final int s1 = Integer.numberOfLeadingZeros(n1);
    final int s2 = Integer.numberOfLeadingZeros(n2);
    final int[] out = this.block;
    int idx = mti;
    if (idx < N) {
      temperBlock(idx);
    }
    for (long l = 0; l < lines; l++) {
      int r;
      do {
        if (idx >= N) {
          twist();
          temperBlock(0);
          idx = 0;
        }
        r = out[idx++] >>> s1;
      } while (r >= n1);
      hits1[values1[r]]++;
      do {
        if (idx >= N) {
          twist();
          temperBlock(0);
          idx = 0;
        }
        r = out[idx++] >>> s2;
      } while (r >= n2);
      hits2[values2[r]]++;
    }
    mti = idx;
  }

  /** Tempered outputs of the current state, from {@code from} to the end of the block. */
  private final int[] block = new int[N];

  private void temperBlock(int from) {
    final int[] mt = this.mt;
    final int[] out = this.block;
    for (int k = from; k < N; k++) {
      int y = mt[k];
      y ^= (y >>> 11);
      y ^= (y << 7) & 0x9d2c5680;
      y ^= (y << 15) & 0xefc60000;
      y ^= (y >>> 18);
      out[k] = y;
    }
  }
}
