package io.logbench.dataset.app;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The pool of app-json records that lines are picked from, like the k6 script's {@code
 * SharedArray}: entry {@code j} has a level and message fixed by {@code j} and a trace id, user id
 * and latency drawn from a {@link SplittableRandom} seeded with the dataset seed.
 *
 * <p>Each entry is held pre-encoded as the JSON middle of a line, from {@code "level"} up to and
 * including {@code "seq":}, so making a line only copies bytes. All entries sit back to back in
 * one array, the fewest cache lines and pages for {@link #touch} to load: a line picks an entry at
 * random, and after a source's sleep between batches the entries are cold (docs/benchmarks.md,
 * twelfth round).
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
  /** Every entry's bytes, entry {@code j} from {@code starts[j]} to {@code starts[j + 1]}. */
  private final byte[] encoded;
  private final int[] starts;
  private final int maxEncodedLength;

  AppJsonPool(long seed, int size) {
    traceIds = new String[size];
    userIds = new int[size];
    latencies = new int[size];
    byte[][] entries = new byte[size][];
    // One generator drawn in entry order, a fixed number of draws per entry, so entry j is the
    // same for every pool size larger than j.
    SplittableRandom random = new SplittableRandom(seed);
    int max = 0;
    for (int j = 0; j < size; j++) {
      traceIds[j] = traceId(random.nextLong(), random.nextLong());
      userIds[j] = random.nextInt(USERS);
      latencies[j] = random.nextInt(MAX_LATENCY_MS);
      entries[j] = encode(j);
      max = Math.max(max, entries[j].length);
    }
    maxEncodedLength = max;
    starts = new int[size + 1];
    for (int j = 0; j < size; j++) {
      starts[j + 1] = Math.addExact(starts[j], entries[j].length);
    }
    encoded = new byte[starts[size]];
    for (int j = 0; j < size; j++) {
      System.arraycopy(entries[j], 0, encoded, starts[j], entries[j].length);
    }
  }

  int size() {
    return starts.length - 1;
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

  /** Reads one byte of each cache line of entry {@code j} (to load it); returns their sum. */
  int touch(int j) {
    int from = starts[j];
    int last = starts[j + 1] - 1;
    int sum = 0;
    for (int at = from; at < last; at += 64) {
      sum += encoded[at];
    }
    return sum + encoded[last];
  }

  /**
   * Copies the JSON bytes of entry {@code j}, from {@code "level"} to {@code "seq":}, to {@code
   * dst} at {@code at}; returns the offset after them.
   */
  int copyEncoded(int j, byte[] dst, int at) {
    int from = starts[j];
    int length = starts[j + 1] - from;
    System.arraycopy(encoded, from, dst, at, length);
    return at + length;
  }

  int maxEncodedLength() {
    return maxEncodedLength;
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
