package io.logbench.dataset.app;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.KeyedCounts;
import io.logbench.dataset.JsonEscaping;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import java.io.ObjectStreamException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code app-json} dataset: the JSON lines of seed 000's k6 load test, as a pure function of
 * (seed, line index).
 *
 * <p>Line {@code i} is pool entry {@link #poolIndex(long) poolIndex(i)} (a counter-based hash of
 * seed and index) written as one JSON object in the shape of the k6 script's VictoriaLogs body,
 * labels first, plus the line index as {@code seq} so every line is unique and a lost line can be
 * named:
 *
 * <pre>{@code
 * {"namespace":"loadtest","container":"k6-7","level":"info","msg":"request handled path=/api/orders status=200","trace_id":"<32 hex>","user_id":"u1234","latency_ms":456,"seq":1234567}
 * }</pre>
 *
 * <p>With a run id in the body ({@link Builder#runInBody}, what a canary sends), every line also
 * carries {@code "logbench_run":"<id>"} after its container, so the run and the sequence number
 * of a line survive an agent that rewrites the record around it.
 *
 * <p>Lines come in blocks of {@code streamBlock} consecutive lines of one stream, like one k6
 * request of 100 lines from one VU. The dataset's own time of line {@code i} is {@code
 * startMillis + floor(i * 1000 / rate)}.
 */
public final class AppJsonDataset implements Dataset {

  private static final long serialVersionUID = 1L;

  public static final String NAME = "app-json";

  public static final int DEFAULT_STREAMS = 20;
  public static final int DEFAULT_POOL_SIZE = 5000;
  public static final int DEFAULT_STREAM_BLOCK = 100;
  /** When seed 000's VictoriaLogs run started. */
  public static final long DEFAULT_START_MILLIS =
      Instant.parse("2026-10-13T08:12:46Z").toEpochMilli();
  public static final long DEFAULT_RATE = 10_000;

  /** Keeps {@code index * 1000} and {@code millis * rate} far from overflowing a long. */
  public static final long MAX_LINES = 1_000_000_000_000_000L;
  public static final long MAX_RATE = 1_000_000_000_000L;

  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
  /** Longest decimal long plus the closing brace. */
  private static final int MAX_SEQ_BYTES = 20;

  private final long seed;
  private final long lines;
  private final int streamCount;
  private final int poolSize;
  private final int streamBlock;
  private final long startMillis;
  private final long rate;
  private final String runInBody;
  private final AppJsonStreams streams;

  // Rebuilt from the seed after deserialization (see readResolve) rather than shipped.
  private final transient AppJsonPool pool;
  private final transient byte[][] prefixes;
  /** {@link #prefixes} escaped for a JSON string, for lines made escaped. */
  private final transient byte[][] escapedPrefixes;
  private final transient int maxLineBytes;

  private AppJsonDataset(Builder b) {
    this.seed = b.seed;
    this.lines = b.lines;
    this.streamCount = b.streams;
    this.poolSize = b.poolSize;
    this.streamBlock = b.streamBlock;
    this.startMillis = b.startMillis;
    this.rate = b.rate;
    this.runInBody = b.runInBody;
    this.streams = new AppJsonStreams(streamCount);
    this.pool = new AppJsonPool(seed, poolSize);
    this.prefixes = new byte[streamCount][];
    this.escapedPrefixes = new byte[streamCount][];
    int maxPrefix = 0;
    for (int s = 0; s < streamCount; s++) {
      prefixes[s] =
          ("{\"namespace\":\"" + AppJsonStreams.NAMESPACE + "\",\"container\":\""
                  + streams.container(s) + "\","
                  + (runInBody == null ? "" : "\"" + RUN_IN_BODY_FIELD + "\":\"" + runInBody + "\","))
              .getBytes(StandardCharsets.US_ASCII);
      escapedPrefixes[s] = JsonEscaping.escape(prefixes[s]);
      maxPrefix = Math.max(maxPrefix, prefixes[s].length);
    }
    this.maxLineBytes = maxPrefix + pool.raw().maxLength() + MAX_SEQ_BYTES + 1;
  }

  /** A builder with the defaults of seed 000; {@code lines} must be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** The field of the run id in each line's body, with {@link Builder#runInBody}. */
  public static final String RUN_IN_BODY_FIELD = "logbench_run";

  /** The run id every line carries in its body, or null when lines carry none. */
  public String runInBody() {
    return runInBody;
  }

  /** Every line ends with its {@code "seq"}. */
  @Override
  public boolean linesCarrySeq() {
    return true;
  }

  /** Its cursors copy pool entries and prefixes kept escaped too. */
  @Override
  public boolean makesJsonEscapedLines() {
    return true;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public long size() {
    return lines;
  }

  public long seed() {
    return seed;
  }

  public int poolSize() {
    return poolSize;
  }

  public int streamBlock() {
    return streamBlock;
  }

  /** Nominal rate of the dataset's own time, lines per second. */
  public long rate() {
    return rate;
  }

  @Override
  public long timestampMillis(long index) {
    checkIndex(index);
    return startMillis + index * 1000 / rate;
  }

  @Override
  public long countBefore(long epochMillis) {
    // Compared before subtracting, so extreme instants cannot overflow.
    if (epochMillis <= startMillis) {
      return 0;
    }
    if (epochMillis >= endMillis()) {
      return lines;
    }
    long d = epochMillis - startMillis;
    // floor(i * 1000 / rate) < d  <=>  i * 1000 < d * rate  <=>  i < ceil(d * rate / 1000).
    return Math.min(lines, (d * rate + 999) / 1000);
  }

  @Override
  public long firstMillis() {
    return startMillis;
  }

  /** The nominal end, {@code startMillis + ceil(lines * 1000 / rate)}: after the last line. */
  @Override
  public long endMillis() {
    return startMillis + (lines * 1000 + rate - 1) / rate;
  }

  @Override
  public AppJsonStreams streams() {
    return streams;
  }

  @Override
  public LineCursor cursor(long fromIndex) {
    if (fromIndex < 0 || fromIndex > lines) {
      throw new IllegalArgumentException(
          "A cursor must start within [0, " + lines + "], got " + fromIndex + ".");
    }
    return new Cursor(fromIndex);
  }

  /** Stream of line {@code index}: {@code (index / streamBlock) % streams}. */
  public int stream(long index) {
    checkIndex(index);
    return (int) ((index / streamBlock) % streamCount);
  }

  /** Pool entry line {@code index} is made from. */
  public int poolIndex(long index) {
    checkIndex(index);
    return pick(index);
  }

  /** app-json counts lines by {@code level} and by {@code container} (its stream). */
  @Override
  public List<String> countKeys() {
    return AppJsonKeyedCounts.KEYS;
  }

  /** Exact lines per {@code level} or per {@code container} (see {@link AppJsonKeyedCounts}). */
  @Override
  public KeyedCounts keyedCounts(String key) {
    if (!AppJsonKeyedCounts.KEYS.contains(key)) {
      throw unknownCountKey(key);
    }
    return new AppJsonKeyedCounts(this, key);
  }

  /** The raw bytes of line {@code index}, for naming one line; use a cursor for many. */
  public byte[] line(long index) {
    checkIndex(index);
    LineBatch batch = new LineBatch(1, maxLineBytes);
    Cursor cursor = new Cursor(index);
    cursor.next(batch);
    return Arrays.copyOf(batch.data(), batch.byteSize());
  }

  AppJsonPool pool() {
    return pool;
  }

  /** The pool entry of line {@code index}, unchecked (for cursors and counts). */
  int pick(long index) {
    // splitmix64 output number index + 1 of a generator seeded with seed: line 0 of seed 0 does
    // not hash the all-zero input.
    return (int) Long.remainderUnsigned(mix64(seed + (index + 1) * GOLDEN_GAMMA), poolSize);
  }

  /** The splitmix64 finalizer. */
  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private void checkIndex(long index) {
    if (index < 0 || index >= lines) {
      throw new IndexOutOfBoundsException(
          "Line " + index + " is outside [0, " + lines + ") of the app-json dataset.");
    }
  }

  private Object readResolve() throws ObjectStreamException {
    return builder()
        .seed(seed)
        .lines(lines)
        .streams(streamCount)
        .poolSize(poolSize)
        .streamBlock(streamBlock)
        .startMillis(startMillis)
        .rate(rate)
        .runInBody(runInBody)
        .build();
  }

  /** Writes decimal {@code v >= 0} at {@code at} and returns the offset after it. */
  private static int writeDigits(byte[] dst, int at, long v) {
    if (v <= Integer.MAX_VALUE) {
      return writeDigits(dst, at, (int) v); // int division is cheaper: every run of < 2^31 lines
    }
    int n = 1;
    for (long t = v; t >= 10; t /= 10) {
      n++;
    }
    int end = at + n;
    int p = end;
    do {
      dst[--p] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    } while (v != 0);
    return end;
  }

  private static int writeDigits(byte[] dst, int at, int v) {
    int n = 1;
    for (int t = v; t >= 10; t /= 10) {
      n++;
    }
    int end = at + n;
    int p = end;
    do {
      int q = v / 10;
      dst[--p] = (byte) ('0' + (v - q * 10));
      v = q;
    } while (v != 0);
    return end;
  }

  /**
   * Makes lines in order. Stream and timestamp advance incrementally, so a line costs one hash,
   * two array copies and the seq digits.
   */
  private final class Cursor implements LineCursor {

    private long position;
    private int stream;
    private int leftInBlock;
    private long offsetMillis;
    /** {@code position * 1000 mod rate}: the part of a millisecond already elapsed. */
    private long remainder;

    private final long stepMillis = 1000 / rate;
    private final long stepRemainder = 1000 % rate;

    /** The form of lines last made ({@link LineBatch#jsonEscaped()}), and what makes lines in it. */
    private boolean escaped;
    private byte[][] linePrefixes = prefixes;
    private AppJsonPool.Entries entries = pool.raw();
    private int maxBytes = maxLineBytes;

    /** Kept so the reads of {@link #next(LineBatch, int)}'s first pass are not optimised away. */
    private int touched;
    /**
     * The entries {@link #next(LineBatch, int)}'s first pass picked, for its second: a pick is a
     * 64-bit remainder, which C1 (the JIT of a run) makes a call into the VM.
     */
    private int[] picks = new int[0];

    Cursor(long fromIndex) {
      seek(fromIndex);
    }

    @Override
    public long position() {
      return position;
    }

    @Override
    public void skipTo(long index) {
      if (index < position || index > lines) {
        throw new IllegalArgumentException(
            "A cursor can only move forward within [" + position + ", " + lines + "], got "
                + index + ".");
      }
      seek(index);
    }

    /**
     * Reads the pool entries of all {@code n} lines first, then makes the lines. A source sleeps
     * between batches and the entries, picked at random, are cold when it wakes: reading them in
     * one loop of independent loads lets the processor wait for all those cache misses at once
     * instead of one per line (docs/benchmarks.md, twelfth round).
     */
    @Override
    public void next(LineBatch batch, int n) {
      form(batch);
      int m = (int) (Math.min(lines, position + n) - position);
      if (picks.length < m) {
        picks = new int[m];
      }
      int sum = 0;
      for (int k = 0; k < m; k++) {
        int j = pick(position + k);
        picks[k] = j;
        sum += entries.touch(j);
      }
      touched += sum;
      for (int k = 0; k < m; k++) {
        make(batch, picks[k]);
      }
      for (int k = m; k < n; k++) {
        next(batch); // past the end: refused as line by line
      }
    }

    @Override
    public void next(LineBatch batch) {
      if (position >= lines) {
        throw new IllegalStateException(
            "The cursor is at the end of the app-json dataset (" + lines + " lines).");
      }
      form(batch);
      make(batch, pick(position));
    }

    /** Makes lines in the form {@code batch} holds them: raw, or escaped for a JSON string. */
    private void form(LineBatch batch) {
      if (batch.jsonEscaped() != escaped) {
        escaped = batch.jsonEscaped();
        linePrefixes = escaped ? escapedPrefixes : prefixes;
        entries = escaped ? pool.escaped() : pool.raw();
        int maxPrefix = 0;
        for (byte[] prefix : linePrefixes) {
          maxPrefix = Math.max(maxPrefix, prefix.length);
        }
        // the escaped bytes of the seq digits and the closing brace are the same
        maxBytes = maxPrefix + entries.maxLength() + MAX_SEQ_BYTES + 1;
      }
    }

    /**
     * Makes the line at {@code position} from pool entry {@code j} (its pick), in the form
     * {@link #form} chose, and advances.
     */
    private void make(LineBatch batch, int j) {
      byte[] prefix = linePrefixes[stream];
      int at = batch.reserve(maxBytes);
      byte[] dst = batch.data();
      System.arraycopy(prefix, 0, dst, at, prefix.length);
      at = entries.copy(j, dst, at + prefix.length);
      at = writeDigits(dst, at, position);
      dst[at++] = '}';
      batch.commitLine(at, startMillis + offsetMillis, stream);
      advance();
    }

    private void seek(long index) {
      position = index;
      long block = index / streamBlock;
      stream = (int) (block % streamCount);
      leftInBlock = (int) (streamBlock - (index - block * streamBlock));
      offsetMillis = index * 1000 / rate;
      remainder = index * 1000 % rate;
    }

    private void advance() {
      position++;
      if (--leftInBlock == 0) {
        leftInBlock = streamBlock;
        stream = stream + 1 == streamCount ? 0 : stream + 1;
      }
      offsetMillis += stepMillis;
      remainder += stepRemainder;
      if (remainder >= rate) {
        remainder -= rate;
        offsetMillis++;
      }
    }
  }

  /**
   * Builds an {@link AppJsonDataset}. Defaults: {@link #DEFAULT_STREAMS} streams, a pool of
   * {@link #DEFAULT_POOL_SIZE}, blocks of {@link #DEFAULT_STREAM_BLOCK} lines, own time from
   * {@link #DEFAULT_START_MILLIS} at {@link #DEFAULT_RATE} lines per second, seed 0.
   */
  public static final class Builder {

    private long seed;
    private long lines = -1;
    private int streams = DEFAULT_STREAMS;
    private int poolSize = DEFAULT_POOL_SIZE;
    private int streamBlock = DEFAULT_STREAM_BLOCK;
    private long startMillis = DEFAULT_START_MILLIS;
    private long rate = DEFAULT_RATE;
    private String runInBody;
    private boolean linesSet;

    private Builder() {}

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder lines(long lines) {
      this.lines = lines;
      this.linesSet = true;
      return this;
    }

    public Builder streams(int streams) {
      this.streams = streams;
      return this;
    }

    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    public Builder streamBlock(int streamBlock) {
      this.streamBlock = streamBlock;
      return this;
    }

    /** The dataset's own time of line 0, epoch milliseconds. */
    public Builder startMillis(long startMillis) {
      this.startMillis = startMillis;
      return this;
    }

    /** Nominal rate of the dataset's own time, lines per second. */
    public Builder rate(long rate) {
      this.rate = rate;
      return this;
    }

    /**
     * Puts {@code runId} into every line's body as {@code "logbench_run"} (null: none, the
     * default): letters, digits, '.', '_' and '-' only, so it needs no escaping.
     */
    public Builder runInBody(String runId) {
      this.runInBody = runId;
      return this;
    }

    public AppJsonDataset build() {
      sanityCheck();
      return new AppJsonDataset(this);
    }

    private void sanityCheck() {
      if (!linesSet) {
        throw new IllegalArgumentException("The number of lines of app-json must be set.");
      }
      if (lines < 0 || lines > MAX_LINES) {
        throw new IllegalArgumentException(
            "The number of lines must be within [0, " + MAX_LINES + "], got " + lines + ".");
      }
      if (streams < 1) {
        throw new IllegalArgumentException(
            "The number of streams must be at least 1, got " + streams + ".");
      }
      if (poolSize < 1) {
        throw new IllegalArgumentException(
            "The pool size must be at least 1, got " + poolSize + ".");
      }
      if (streamBlock < 1) {
        throw new IllegalArgumentException(
            "The stream block must be at least 1 line, got " + streamBlock + ".");
      }
      if (runInBody != null && !runInBody.matches("[A-Za-z0-9._-]{1,128}")) {
        throw new IllegalArgumentException("A run id in the body is 1 to 128 letters, digits, '.', '_' or '-', not \""
            + runInBody + "\".");
      }
      if (rate <= 0 || rate > MAX_RATE) {
        throw new IllegalArgumentException(
            "The rate must be within [1, " + MAX_RATE + "] lines per second, got " + rate + ".");
      }
      long span = (lines * 1000 + rate - 1) / rate;
      if (startMillis < 0 || startMillis > Long.MAX_VALUE / 2 - span) {
        throw new IllegalArgumentException(
            "The start must be a non-negative epoch millisecond that leaves room for the "
                + span + " ms span, got " + startMillis + ".");
      }
    }
  }
}
