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
 * ({@link #escaped}), so making a line only copies bytes.
 */
final class AppJsonPool {

  static final String[] LEVELS = {"info", "info", "info", "debug", "warn", "error"};
  static final String[] PATHS = {"/api/orders", "/api/users", "/healthz", "/api/checkout", "/metrics"};
  static final int USERS = 5000;
  static final int MAX_LATENCY_MS = 900;

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
    byte[][] entries = new byte[size][];
    // One generator drawn in entry order, a fixed number of draws per entry, so entry j is the
    // same for every pool size larger than j.
    SplittableRandom random = new SplittableRandom(seed);
    for (int j = 0; j < size; j++) {
      traceIds[j] = traceId(random.nextLong(), random.nextLong());
      userIds[j] = random.nextInt(USERS);
      latencies[j] = random.nextInt(MAX_LATENCY_MS);
      entries[j] = encode(j);
    }
    raw = new Entries(entries);
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
      byte[][] entries = new byte[size()][];
      for (int j = 0; j < entries.length; j++) {
        entries[j] = JsonEscaping.escape(raw.entry(j));
      }
      escaped = new Entries(entries);
    }
    return escaped;
  }

  int size() {
    return raw.starts.length - 1;
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
   * Encoded entries back to back in one array, the fewest cache lines and pages for {@link
   * #touch} to load: a line picks an entry at random, and after a source's sleep between batches
   * the entries are cold (docs/benchmarks.md, twelfth round).
   */
  static final class Entries {

    /** Every entry's bytes, entry {@code j} from {@code starts[j]} to {@code starts[j + 1]}. */
    private final byte[] bytes;
    private final int[] starts;
    private final int maxLength;

    private Entries(byte[][] entries) {
      starts = new int[entries.length + 1];
      int max = 0;
      for (int j = 0; j < entries.length; j++) {
        starts[j + 1] = Math.addExact(starts[j], entries[j].length);
        max = Math.max(max, entries[j].length);
      }
      maxLength = max;
      bytes = new byte[starts[entries.length]];
      for (int j = 0; j < entries.length; j++) {
        System.arraycopy(entries[j], 0, bytes, starts[j], entries[j].length);
      }
    }

    /** Reads one byte of each cache line of entry {@code j} (to load it); returns their sum. */
    int touch(int j) {
      int from = starts[j];
      int last = starts[j + 1] - 1;
      int sum = 0;
      for (int at = from; at < last; at += 64) {
        sum += bytes[at];
      }
      return sum + bytes[last];
    }

    /** Copies entry {@code j} to {@code dst} at {@code at}; returns the offset after it. */
    int copy(int j, byte[] dst, int at) {
      int from = starts[j];
      int length = starts[j + 1] - from;
      System.arraycopy(bytes, from, dst, at, length);
      return at + length;
    }

    byte[] entry(int j) {
      return Arrays.copyOfRange(bytes, starts[j], starts[j + 1]);
    }

    int maxLength() {
      return maxLength;
    }
  }

  // Every value is plain ASCII without quotes or backslashes, so no JSON escaping is needed.
  private byte[] encode(int j) {
    String middle =
        "\"level\":\"" + level(j)
            + "\",\"msg\":\"" + msg(j)
            + "\",\"trace_id\":\"" + traceIds[j]
            + "\",\"user_id\":\"" + userId(j)
            + "\",\"latency_ms\":" + latencies[j]
            + ",\"seq\":";
    return middle.getBytes(StandardCharsets.US_ASCII);
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
