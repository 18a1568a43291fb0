package io.logbench.dataset.nginx;

import io.logbench.dataset.RangeCounts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Exact nginx-month lines per {@code status} or per {@code path}, from the draws that decide them
 * and nothing else: no time, no text.
 *
 * <p>In {@link NginxMonthDataset.Mode#PYTHON_COMPATIBLE} a piece starts from the Mersenne Twister
 * state recorded at its first line ({@link PythonCheckpoints}, every 2^20 lines, so pieces start
 * on one and never replay the lines before) and draws each line's two {@code choice} calls as the
 * script does, counting the chosen entries of the weighted lists. A piece that ends on the next
 * state offers it, so on a cold JVM the pieces, counted in order, draw every line once. In {@link
 * NginxMonthDataset.Mode#FAST} each line's picks come from the hash of its index, as its cursor
 * makes them. Both count the same picks the lines are made from, so a count is that of the lines.
 *
 * <p>Statuses are listed in ascending order ({@code 200, 302, 304, 404, 408, 500}), paths as the
 * script lists them ({@code page0} to {@code page299}).
 */
final class NginxKeyedCounts extends RangeCounts {

  static final String STATUS = "status";
  static final String PATH = "path";
  static final List<String> KEYS = List.of(STATUS, PATH);

  private final NginxMonthDataset dataset;
  private final boolean byStatus;
  /** Weighted status list entry to its value's column. */
  private final int[] statusColumns;
  /** Weighted path list entry to its page number, which is its column. */
  private final int[] pathColumns;

  NginxKeyedCounts(NginxMonthDataset dataset, String key) {
    super(key, values(key), dataset.size(), PythonCheckpoints.EVERY);
    this.dataset = dataset;
    this.byStatus = STATUS.equals(key);
    NginxPrelude prelude = dataset.prelude();
    int[] sorted = NginxPrelude.BASE_STATUS_CODES.clone();
    Arrays.sort(sorted);
    int[] statusList = prelude.statusList();
    this.statusColumns = new int[statusList.length];
    for (int i = 0; i < statusList.length; i++) {
      statusColumns[i] = Arrays.binarySearch(sorted, NginxPrelude.statusCode(statusList[i]));
    }
    this.pathColumns = prelude.pathList();
  }

  private static List<String> values(String key) {
    List<String> values = new ArrayList<>();
    if (STATUS.equals(key)) {
      int[] sorted = NginxPrelude.BASE_STATUS_CODES.clone();
      Arrays.sort(sorted);
      for (int code : sorted) {
        values.add(String.valueOf(code));
      }
    } else {
      for (int page = 0; page < NginxPrelude.BASE_PATHS; page++) {
        values.add("page" + page);
      }
    }
    return values;
  }

  /**
   * One thread while the generator states of the range are not all recorded yet: counting the
   * pieces in order, each hands the state it ends on to the next ({@link PythonCheckpoints#offer}),
   * so every line is drawn once. Parallel pieces would each need the skip pass to draw the lines
   * before them first, which costs more CPU and, the pass being serial, no less time.
   */
  @Override
  protected int threads(long from, long to, int asked) {
    boolean python = dataset.mode() == NginxMonthDataset.Mode.PYTHON_COMPATIBLE;
    return python && !PythonCheckpoints.of(dataset).recordedTo(to - 1) ? 1 : asked;
  }

  @Override
  protected Counter counter() {
    return dataset.mode() == NginxMonthDataset.Mode.PYTHON_COMPATIBLE
        ? new PythonCounter()
        : new FastCounter();
  }

  /** Draws as the script does, from the recorded state at or before the first line. */
  private final class PythonCounter implements Counter {
    private PythonRandom random;
    private long position = -1;
    /** The column counts of the field not asked for: drawn all the same, then dropped. */
    private final long[] other =
        new long[byStatus ? NginxPrelude.BASE_PATHS : NginxPrelude.BASE_STATUS_CODES.length];

    @Override
    public void add(long from, long to, long[] into) {
      if (from != position) {
        random = PythonCheckpoints.of(dataset).randomAt(from);
      }
      if (byStatus) {
        random.countPairs(to - from, statusColumns, into, pathColumns, other);
      } else {
        random.countPairs(to - from, statusColumns, other, pathColumns, into);
      }
      position = to;
      if (to % PythonCheckpoints.EVERY == 0) {
        PythonCheckpoints.of(dataset).offer(to, random.state());
      }
    }
  }

  /** Hashes each line's index, as the fast cursor does. */
  private final class FastCounter implements Counter {
    @Override
    public void add(long from, long to, long[] into) {
      long seed = dataset.seed();
      if (byStatus) {
        int n = statusColumns.length;
        for (long i = from; i < to; i++) {
          long h = NginxMonthDataset.fastHash(seed, i);
          into[statusColumns[NginxMonthDataset.fastStatusPick(h, n)]]++;
        }
      } else {
        int n = pathColumns.length;
        for (long i = from; i < to; i++) {
          long h = NginxMonthDataset.fastHash(seed, i);
          into[pathColumns[NginxMonthDataset.fastPathPick(h, n)]]++;
        }
      }
    }
  }
}
