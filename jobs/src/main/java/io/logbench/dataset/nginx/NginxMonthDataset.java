package io.logbench.dataset.nginx;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.KeyedCounts;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.StreamCatalog;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Seed 004's month of nginx-like JSON lines (May 2021), a pure function of (seed, line index).
 *
 * <p>Per-minute counts and line times are exactly the seed script's. In {@link
 * Mode#PYTHON_COMPATIBLE} the status and path of every line come from CPython's Mersenne Twister
 * as the script draws them, so lines are byte-identical to the script's; a cursor starts from the
 * nearest recorded generator state ({@link PythonCheckpoints}) instead of replaying from line 0.
 * In {@link Mode#FAST} they come from a counter-based hash of the index with the same weights.
 */
public final class NginxMonthDataset implements Dataset {

  private static final long serialVersionUID = 1L;

  /** How line content is drawn. */
  public enum Mode {
    PYTHON_COMPATIBLE("python-compatible"),
    FAST("fast");

    private final String key;

    Mode(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }

    public static Mode fromKey(String key) {
      for (Mode m : values()) {
        if (m.key.equals(key)) {
          return m;
        }
      }
      return null;
    }
  }

  /** The script runs with TZ=America/Sao_Paulo; its lines say -0300 whatever the zone. */
  public static final ZoneId SCRIPT_ZONE = ZoneId.of("America/Sao_Paulo");

  static final LocalDateTime START = LocalDateTime.of(2021, 5, 1, 0, 0);
  private static final String[] MONTHS = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
  };

  /** {@code { "time":"[} then 24 bytes of {@code dd/Mon/yyyy:HH:MM:SS.mmm}. */
  static final int HEAD = 11 + 24;

  private final long seed;
  private final Mode mode;
  private final ZoneId zone;
  private final transient NginxPrelude prelude;
  /** Epoch millisecond of each minute's start (as the script's naive local datetime). */
  private final long[] minuteStart;
  private transient byte[][] tails;
  private transient int[] statusList;
  private transient int[] pathList;
  /** Byte length of every line, minus the head, by its index in the weighted path list. */
  private transient int[] pathWeights;

  public NginxMonthDataset(long seed, Mode mode) {
    this(seed, mode, SCRIPT_ZONE);
  }

  public NginxMonthDataset(long seed, Mode mode, ZoneId zone) {
    if (mode == null) {
      throw new IllegalArgumentException("An nginx-month dataset needs a mode: python-compatible or fast.");
    }
    this.seed = seed;
    this.mode = mode;
    this.zone = zone;
    this.prelude = NginxPrelude.of(seed);
    this.minuteStart = new long[NginxPrelude.MINUTES + 1];
    for (int m = 0; m <= NginxPrelude.MINUTES; m++) {
      minuteStart[m] = START.plusMinutes(m).atZone(zone).toInstant().toEpochMilli();
    }
  }

  NginxPrelude prelude() {
    return prelude != null ? prelude : NginxPrelude.of(seed);
  }

  @Override
  public String name() {
    return "nginx-month";
  }

  public Mode mode() {
    return mode;
  }

  public long seed() {
    return seed;
  }

  @Override
  public ZoneId zone() {
    return zone;
  }

  @Override
  public long size() {
    return prelude().totalLines();
  }

  /** Lines in minute {@code m} of the month. */
  public int linesInMinute(int m) {
    return prelude().linesInMinute(m);
  }

  /** Lines before minute {@code m}. */
  public long linesBefore(int m) {
    return prelude().linesBefore(m);
  }

  /** Epoch millisecond at which minute {@code m} starts. */
  public long minuteStartMillis(int m) {
    return minuteStart[m];
  }

  /** The minute holding {@code epochMillis} (clamped to 0 .. MINUTES). */
  public int minuteAt(long epochMillis) {
    int lo = 0;
    int hi = NginxPrelude.MINUTES;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (minuteStart[mid] <= epochMillis) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * The script's time of line {@code k} of minute {@code m}: {@code int(dstart + t[k])} with
   * {@code t = np.linspace(0, 59, v) * 1000}, numpy computing {@code k * (59 / (v - 1))} and
   * setting the last point to exactly 59.
   */
  static long lineMillis(long minuteStartMillis, int k, int v) {
    double t;
    if (v <= 1 || k == 0) {
      t = 0.0;
    } else if (k == v - 1) {
      t = 59.0 * 1000;
    } else {
      double step = 59.0 / (v - 1);
      t = ((double) k * step) * 1000;
    }
    return (long) ((double) minuteStartMillis + t);
  }

  @Override
  public long timestampMillis(long index) {
    NginxPrelude p = prelude();
    int m = p.minuteOf(index);
    return lineMillis(minuteStart[m], (int) (index - p.linesBefore(m)), p.linesInMinute(m));
  }

  @Override
  public long countBefore(long epochMillis) {
    if (epochMillis <= minuteStart[0]) {
      return 0;
    }
    if (epochMillis >= minuteStart[NginxPrelude.MINUTES]) {
      return size();
    }
    NginxPrelude p = prelude();
    int m = minuteAt(epochMillis);
    int v = p.linesInMinute(m);
    // first k whose time is >= epochMillis; times are non-decreasing in k
    int lo = 0;
    int hi = v;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (lineMillis(minuteStart[m], mid, v) < epochMillis) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return p.linesBefore(m) + lo;
  }

  @Override
  public long firstMillis() {
    return minuteStart[0];
  }

  @Override
  public long endMillis() {
    return minuteStart[NginxPrelude.MINUTES];
  }

  @Override
  public StreamCatalog streams() {
    return NginxStreams.INSTANCE;
  }

  /** Stream id of a line with distinct status index s and page p (seed 004's job/path/status labels). */
  static int streamId(int status, int page) {
    return status * NginxPrelude.BASE_PATHS + page;
  }

  @Override
  public LineCursor cursor(long fromIndex) {
    if (fromIndex < 0 || fromIndex > size()) {
      throw new IllegalArgumentException(
          "Line index " + fromIndex + " is outside the nginx-month dataset [0, " + size() + "].");
    }
    ensureTables();
    return mode == Mode.PYTHON_COMPATIBLE
        ? new PythonCursor(fromIndex)
        : new FastCursor(fromIndex);
  }

  @Override
  public Serializable resumeToken(long index) {
    return mode == Mode.PYTHON_COMPATIBLE ? PythonCheckpoints.of(this).randomAt(index).state() : null;
  }

  @Override
  public LineCursor cursor(long fromIndex, Serializable resumeToken) {
    if (mode != Mode.PYTHON_COMPATIBLE || !(resumeToken instanceof int[])) {
      return cursor(fromIndex);
    }
    ensureTables();
    return new PythonCursor(fromIndex, PythonRandom.fromState((int[]) resumeToken));
  }

  /** nginx-month counts lines by the two fields the case study counted by: status and path. */
  @Override
  public List<String> countKeys() {
    return NginxKeyedCounts.KEYS;
  }

  /**
   * Exact lines per {@code status} or per {@code path}, from the draws alone (see {@link
   * NginxKeyedCounts}).
   */
  @Override
  public KeyedCounts keyedCounts(String key) {
    if (!NginxKeyedCounts.KEYS.contains(key)) {
      throw unknownCountKey(key);
    }
    return new NginxKeyedCounts(this, key);
  }

  /** Bytes of minute {@code m}'s lines (no separators), without formatting them. */
  public long minuteBytes(int m) {
    if (mode == Mode.PYTHON_COMPATIBLE) {
      return PythonCheckpoints.of(this).minuteBytes(m);
    }
    ensureTables();
    long bytes = 0;
    for (long i = linesBefore(m), end = linesBefore(m + 1); i < end; i++) {
      bytes += pathWeights[fastPathIndex(i)];
    }
    return bytes;
  }

  @Override
  public long byteSize(long from, long to) {
    if (from >= to) {
      return 0;
    }
    ensureTables();
    if (mode == Mode.FAST) {
      long bytes = 0;
      for (long i = from; i < to; i++) {
        bytes += pathWeights[fastPathIndex(i)];
      }
      return bytes;
    }
    // whole minutes come from the skip pass; only partial minutes at the edges are made
    NginxPrelude p = prelude();
    int first = p.minuteOf(from);
    int last = p.minuteOf(to - 1);
    long bytes = 0;
    for (int m = first; m <= last; m++) {
      long start = Math.max(from, p.linesBefore(m));
      long end = Math.min(to, p.linesBefore(m + 1));
      if (start == p.linesBefore(m) && end == p.linesBefore(m + 1)) {
        bytes += minuteBytes(m);
      } else if (end > start) {
        bytes += Dataset.super.byteSize(start, end);
      }
    }
    return bytes;
  }

  /** Byte length of the part after the time, per page number, for sizing (status is 3 bytes). */
  static int[] tailLengthByPage() {
    int[] len = new int[NginxPrelude.BASE_PATHS];
    for (int p = 0; p < len.length; p++) {
      len[p] = tail(0, p).length;
    }
    return len;
  }

  /** Line length (head included) by index into the weighted path list. */
  static int[] lineLengthByPathIndex(int[] pathList) {
    int[] byPage = tailLengthByPage();
    int[] w = new int[pathList.length];
    for (int i = 0; i < w.length; i++) {
      w[i] = HEAD + byPage[pathList[i]];
    }
    return w;
  }

  /** {@code  -0300]", "path":"page153", "status":"302" }}. */
  static byte[] tail(int status, int page) {
    return (" -0300]\", \"path\":\"page" + page + "\", \"status\":\"" + NginxPrelude.statusCode(status) + "\" }")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private void ensureTables() {
    if (tails != null) {
      return;
    }
    NginxPrelude p = prelude();
    byte[][] t = new byte[6 * NginxPrelude.BASE_PATHS][];
    for (int s = 0; s < 6; s++) {
      for (int page = 0; page < NginxPrelude.BASE_PATHS; page++) {
        t[streamId(s, page)] = tail(s, page);
      }
    }
    statusList = p.statusList();
    pathList = p.pathList();
    pathWeights = lineLengthByPathIndex(pathList);
    tails = t;
  }

  /** Shared by both cursors: writes the head of minute m's lines and the digits of each line. */
  private abstract class BaseCursor implements LineCursor {
    long position;
    int minute = -1;
    int k;
    int v;
    long minuteMillis;
    final byte[] head = new byte[HEAD];

    BaseCursor(long from) {
      this.position = from;
      seekMinute(from);
    }

    final void seekMinute(long index) {
      NginxPrelude p = prelude();
      if (index >= p.totalLines()) {
        minute = NginxPrelude.MINUTES;
        return;
      }
      int m = p.minuteOf(index);
      if (m != minute) {
        minute = m;
        v = p.linesInMinute(m);
        minuteMillis = minuteStart[m];
        writeHead(m);
      }
      k = (int) (index - p.linesBefore(m));
    }

    private void writeHead(int m) {
      ZonedDateTime t = Instant.ofEpochMilli(minuteStart[m]).atZone(zone);
      String s =
          String.format(
              Locale.ROOT,
              "{ \"time\":\"[%02d/%s/%04d:%02d:%02d:00.000",
              t.getDayOfMonth(),
              MONTHS[t.getMonthValue() - 1],
              t.getYear(),
              t.getHour(),
              t.getMinute());
      byte[] b = s.getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(b, 0, head, 0, HEAD);
    }

    @Override
    public long position() {
      return position;
    }

    /** The next line's (status index, page) pair as status * 300 + page; moves the draws on. */
    abstract int drawStream();

    @Override
    public void next(LineBatch batch) {
      if (k >= v) {
        seekMinute(position);
      }
      long ts = lineMillis(minuteMillis, k, v);
      int stream = drawStream();
      byte[] tail = tails[stream];
      int at = batch.reserve(HEAD + tail.length);
      byte[] out = batch.data();
      System.arraycopy(head, 0, out, at, HEAD);
      int ms = (int) (ts - minuteMillis);
      int sec = ms / 1000;
      int milli = ms - sec * 1000;
      out[at + 29] = (byte) ('0' + sec / 10);
      out[at + 30] = (byte) ('0' + sec % 10);
      out[at + 32] = (byte) ('0' + milli / 100);
      out[at + 33] = (byte) ('0' + (milli / 10) % 10);
      out[at + 34] = (byte) ('0' + milli % 10);
      System.arraycopy(tail, 0, out, at + HEAD, tail.length);
      batch.commitLine(at + HEAD + tail.length, ts, stream);
      k++;
      position++;
    }
  }

  /** Draws as the script does, from CPython's generator state at its position. */
  private final class PythonCursor extends BaseCursor {
    private PythonRandom random;

    PythonCursor(long from) {
      this(from, PythonCheckpoints.of(NginxMonthDataset.this).randomAt(from));
    }

    PythonCursor(long from, PythonRandom random) {
      super(from);
      this.random = random;
    }

    @Override
    int drawStream() {
      int s = statusList[random.randbelow(statusList.length)];
      int page = pathList[random.randbelow(pathList.length)];
      return streamId(s, page);
    }

    @Override
    public void skipTo(long index) {
      if (index < position) {
        throw new IllegalArgumentException("Cursor at line " + position + " cannot go back to " + index + ".");
      }
      if (index - position > PythonCheckpoints.EVERY) {
        random = PythonCheckpoints.of(NginxMonthDataset.this).randomAt(index);
      } else {
        random.skipPairs(index - position, statusList.length, pathList.length, pathWeights);
      }
      position = index;
      seekMinute(index);
    }
  }

  /** Counter-based: line i's draws come from a hash of (seed, i) alone. */
  private final class FastCursor extends BaseCursor {
    FastCursor(long from) {
      super(from);
    }

    @Override
    int drawStream() {
      long h = fastHash(seed, position);
      int s = statusList[fastStatusPick(h, statusList.length)];
      int page = pathList[fastPathPick(h, pathList.length)];
      return streamId(s, page);
    }

    @Override
    public void skipTo(long index) {
      if (index < position) {
        throw new IllegalArgumentException("Cursor at line " + position + " cannot go back to " + index + ".");
      }
      position = index;
      seekMinute(index);
    }
  }

  /** The fast mode's index into the weighted path list for line {@code index}. */
  private int fastPathIndex(long index) {
    return fastPathPick(fastHash(seed, index), pathList.length);
  }

  /** The fast mode's hash of line {@code index}: its status and path picks follow from it. */
  static long fastHash(long seed, long index) {
    return mix(seed * 0x9E3779B97F4A7C15L + index);
  }

  /** Index into a weighted status list of {@code n} entries, from the hash's high 32 bits. */
  static int fastStatusPick(long hash, int n) {
    return (int) (((hash >>> 32) * n) >>> 32);
  }

  /** Index into a weighted path list of {@code n} entries, from the hash's low 32 bits. */
  static int fastPathPick(long hash, int n) {
    return (int) (((hash & 0xffffffffL) * n) >>> 32);
  }

  /** splitmix64's finalizer. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Seed 004's promtail labels: job=nginx, path, status. */
  enum NginxStreams implements StreamCatalog {
    INSTANCE;

    @Override
    public int size() {
      return 6 * NginxPrelude.BASE_PATHS;
    }

    @Override
    public Map<String, String> labels(int id) {
      int s = id / NginxPrelude.BASE_PATHS;
      int page = id % NginxPrelude.BASE_PATHS;
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("job", "nginx");
      labels.put("path", "page" + page);
      labels.put("status", String.valueOf(NginxPrelude.statusCode(s)));
      return labels;
    }

    @Override
    public List<String> labelNames() {
      return List.of("job", "path", "status");
    }
  }
}
