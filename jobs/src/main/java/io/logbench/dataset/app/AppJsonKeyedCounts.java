package io.logbench.dataset.app;

import io.logbench.dataset.RangeCounts;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Exact app-json lines per {@code level} or per {@code container}, without making lines.
 *
 * <p>A line's level is that of the pool entry it picks, so a level count hashes each line's index
 * as the cursor does and looks the entry's level up (pieces of 2^20 lines, in parallel). A line's
 * container is its stream, {@code (index / streamBlock) mod streams}, so a container count is
 * arithmetic: whole cycles of {@code streamBlock * streams} lines give every container {@code
 * streamBlock} lines, and only the part of a cycle at each end is looked at.
 *
 * <p>Levels are listed in the order the pool cycles through them ({@code info, debug, warn,
 * error}), containers by stream id ({@code k6-0}, {@code k6-1}, ...).
 */
final class AppJsonKeyedCounts extends RangeCounts {

  static final String LEVEL = "level";
  static final String CONTAINER = "container";
  static final List<String> KEYS = List.of(LEVEL, CONTAINER);

  private static final long LEVEL_PIECE = 1L << 20;

  private final AppJsonDataset dataset;
  private final boolean byLevel;
  /** Pool entry to its level's column. */
  private final int[] levelColumns;

  AppJsonKeyedCounts(AppJsonDataset dataset, String key) {
    super(key, values(dataset, key), dataset.size(),
        LEVEL.equals(key) ? LEVEL_PIECE : Long.MAX_VALUE / 2);
    this.dataset = dataset;
    this.byLevel = LEVEL.equals(key);
    List<String> levels = levels();
    this.levelColumns = new int[dataset.poolSize()];
    for (int j = 0; j < levelColumns.length; j++) {
      levelColumns[j] = levels.indexOf(AppJsonPool.level(j));
    }
  }

  private static List<String> levels() {
    return new ArrayList<>(new LinkedHashSet<>(List.of(AppJsonPool.LEVELS)));
  }

  private static List<String> values(AppJsonDataset dataset, String key) {
    if (LEVEL.equals(key)) {
      return levels();
    }
    List<String> containers = new ArrayList<>();
    for (int s = 0; s < dataset.streams().size(); s++) {
      containers.add(dataset.streams().container(s));
    }
    return containers;
  }

  @Override
  protected Counter counter() {
    return byLevel ? this::addLevels : this::addContainers;
  }

  private void addLevels(long from, long to, long[] into) {
    for (long i = from; i < to; i++) {
      into[levelColumns[dataset.pick(i)]]++;
    }
  }

  private void addContainers(long from, long to, long[] into) {
    for (int s = 0; s < into.length; s++) {
      into[s] += linesOfStreamBefore(to, s) - linesOfStreamBefore(from, s);
    }
  }

  /** Lines of stream {@code s} among lines [0, n). */
  private long linesOfStreamBefore(long n, int s) {
    long block = dataset.streamBlock();
    long cycle = block * dataset.streams().size();
    long inLastCycle = n % cycle - s * block;
    return n / cycle * block + Math.max(0, Math.min(block, inLastCycle));
  }
}
