package io.logbench.dataset.app;

import io.logbench.dataset.JsonEscaping;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The pool of app-json records that lines are picked from, like the k6 script's {@code
 * SharedArray}: entry {@code j} has a level and message fixed by {@code j} and a trace id, user id
 * and latency drawn from a {@link SplittableRandom} seeded with the dataset seed.
 *
 * <p>Each entry is held pre-encoded as the JSON middle of a line, from {@code "level"} up to and
 * including {@code "seq":} ({@link #raw}), and, for lines made escaped, escaped for a JSON string
 * ({@link #escaped}), so making a line only copies bytes: its head, from {@code "level"} to the
 * opening quote of {@code trace_id}, one of {@value #HEADS} fixed by {@code j} and shared, then its
 * own tail, from the trace id to {@code "seq":}.
 */
final class AppJsonPool {

  static final String[] LEVELS = {"info", "info", "info", "debug", "warn", "error"};
  static final String[] PATHS = {"/api/orders", "/api/users", "/healthz", "/api/checkout", "/metrics"};
  static final int USERS = 5000;
  static final int MAX_LATENCY_MS = 900;
  /** Heads: level ({@code j % 6}), path ({@code j % 5}) and status ({@code j % 17 == 0}). */
  static final int HEADS = 6 * 5 * 2;

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final String[] traceIds;
  private final int[] userIds;
  private final int[] latencies;
  private final Entries raw;
  /** The entries escaped for a JSON string, made on first use ({@link #escaped()}). */
  private Entries escaped;

  AppJsonPool(long seed, int size) {
    traceIds = new String[size];
    userIds = new int[size];
    latencies = new int[size];
    byte[][] tails = new byte[size][];
    byte[][] heads = new byte[HEADS][];
    // One generator drawn in entry order, a fixed number of draws per entry, so entry j is the
    // same for every pool size larger than j.
    SplittableRandom random = new SplittableRandom(seed);
    for (int j = 0; j < size; j++) {
      traceIds[j] = traceId(random.nextLong(), random.nextLong());
      userIds[j] = random.nextInt(USERS);
      latencies[j] = random.nextInt(MAX_LATENCY_MS);
      tails[j] = tail(j);
      if (heads[headOf(j)] == null) {
        heads[headOf(j)] = head(j); // a pool of fewer than 60 entries leaves some heads unused
      }
    }
    raw = new Entries(heads, tails);
  }

  /** The entries' JSON bytes, entry {@code j} from {@code "level"} to {@code "seq":}. */
  Entries raw() {
    return raw;
  }

  /**
   * The same entries escaped for the inside of a JSON string ({@link JsonEscaping}), for lines
   * made escaped ({@link io.logbench.dataset.LineBatch#jsonEscaped()}); made on first use, since
   * a run whose backends take raw lines never needs them.
   */
  synchronized Entries escaped() {
    if (escaped == null) {
      escaped = raw.escaped();
    }
    return escaped;
  }

  int size() {
    return raw.starts.length - 1;
  }

  /** The head of entry {@code j}, one of {@link #HEADS}. */
  static int headOf(int j) {
    return (j % 6 * 5 + j % 5) * 2 + (j % 17 == 0 ? 1 : 0);
  }

  static String level(int j) {
    return LEVELS[j % LEVELS.length];
  }

  static int status(int j) {
    return j % 17 == 0 ? 500 : 200;
  }

  static String msg(int j) {
    return "request handled path=" + PATHS[j % PATHS.length] + " status=" + status(j);
  }

  String traceId(int j) {
    return traceIds[j];
  }

  String userId(int j) {
    return "u" + userIds[j];
  }

  int latencyMs(int j) {
    return latencies[j];
  }

  /**
   * Encoded entries: the {@link #HEADS} shared heads, and every entry's own tail back to back in
   * one array, the fewest cache lines and pages for {@link #touch} to load. A line picks an entry
   * at random, and after a source's sleep between batches the tails are cold (docs/benchmarks.md,
   * twelfth round); the heads, a few kilobytes read by every line, are not.
   */
  static final class Entries {

    /** The shared heads, by index; null for a head no entry of a small pool uses. */
    private final byte[][] heads;
    /** Per entry, its head's index. */
    private final byte[] headOf;
    /** Every entry's tail, entry {@code j}'s from {@code starts[j]} to {@code starts[j + 1]}. */
    private final byte[] tails;
    private final int[] starts;
    private final int maxLength;

    private Entries(byte[][] heads, byte[][] tails) {
      this.heads = heads;
      headOf = new byte[tails.length];
      starts = new int[tails.length + 1];
      int maxHead = 0;
      for (byte[] head : heads) {
        maxHead = head == null ? maxHead : Math.max(maxHead, head.length);
      }
      int maxTail = 0;
      for (int j = 0; j < tails.length; j++) {
        headOf[j] = (byte) headOf(j);
        starts[j + 1] = Math.addExact(starts[j], tails[j].length);
        maxTail = Math.max(maxTail, tails[j].length);
      }
      maxLength = maxHead + maxTail;
      this.tails = new byte[starts[tails.length]];
      for (int j = 0; j < tails.length; j++) {
        System.arraycopy(tails[j], 0, this.tails, starts[j], tails[j].length);
      }
    }

    /** These entries escaped for a JSON string. */
    private Entries escaped() {
      byte[][] h = new byte[heads.length][];
      for (int k = 0; k < h.length; k++) {
        h[k] = heads[k] == null ? null : JsonEscaping.escape(heads[k]);
      }
      byte[][] t = new byte[starts.length - 1][];
      for (int j = 0; j < t.length; j++) {
        t[j] = JsonEscaping.escape(Arrays.copyOfRange(tails, starts[j], starts[j + 1]));
      }
      return new Entries(h, t);
    }

    /** Reads one byte of each cache line of entry {@code j}'s tail (to load it); returns their sum. */
    int touch(int j) {
      int from = starts[j];
      int last = starts[j + 1] - 1;
      int sum = headOf[j];
      for (int at = from; at < last; at += 64) {
        sum += tails[at];
      }
      return sum + tails[last];
    }

    /** Copies entry {@code j} to {@code dst} at {@code at}; returns the offset after it. */
    int copy(int j, byte[] dst, int at) {
      byte[] head = heads[headOf[j]];
      System.arraycopy(head, 0, dst, at, head.length);
      at += head.length;
      int from = starts[j];
      int length = starts[j + 1] - from;
      System.arraycopy(tails, from, dst, at, length);
      return at + length;
    }

    /** Entry {@code j}'s bytes, in a new array. */
    byte[] entry(int j) {
      byte[] out = new byte[maxLength];
      return Arrays.copyOf(out, copy(j, out, 0));
    }

    int maxLength() {
      return maxLength;
    }
  }

  // Every value is plain ASCII without quotes or backslashes, so no JSON escaping is needed.
  /**
   * Entry {@code j}'s head, the same for every entry of its {@link #headOf}: level, message and the
   * trace id's opening quote.
   */
  private static byte[] head(int j) {
    String head = "\"level\":\"" + level(j) + "\",\"msg\":\"" + msg(j) + "\",\"trace_id\":\"";
    return head.getBytes(StandardCharsets.US_ASCII);
  }

  /** Entry {@code j}'s own tail: its trace id, user id and latency, up to {@code "seq":}. */
  private byte[] tail(int j) {
    String tail =
        traceIds[j]
            + "\",\"user_id\":\"" + userId(j)
            + "\",\"latency_ms\":" + latencies[j]
            + ",\"seq\":";
    return tail.getBytes(StandardCharsets.US_ASCII);
  }

  private static String traceId(long high, long low) {
    byte[] hex = new byte[32];
    for (int k = 0; k < 16; k++) {
      hex[k] = HEX[(int) (high >>> (60 - 4 * k)) & 0xf];
      hex[16 + k] = HEX[(int) (low >>> (60 - 4 * k)) & 0xf];
    }
    return new String(hex, StandardCharsets.US_ASCII);
  }
}
