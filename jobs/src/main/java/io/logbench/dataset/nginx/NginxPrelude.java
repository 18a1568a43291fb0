package io.logbench.dataset.nginx;

import java.io.Serializable;

/**
 * What the seed 004 script computes before its first line: the weighted status and path lists,
 * the 310-point rate series, the per-minute line counts over the 44,640 minutes of May 2021, and
 * the Mersenne Twister state the line loop starts from. All of it follows from the seed.
 */
public final class NginxPrelude implements Serializable {

  private static final long serialVersionUID = 1L;

  /** 31 days * 24 hours * 60 minutes. */
  public static final int MINUTES = 44640;

  static final int SERIES_POINTS = 310;
  static final int SERIES_SPACING = 144;
  static final int[] BASE_STATUS_CODES = {200, 304, 500, 408, 404, 302};
  static final int BASE_PATHS = 300;

  private final long seed;
  /** status_codes after the script's weighting, as indices into BASE_STATUS_CODES. */
  private final int[] statusList;
  /** paths after the script's weighting, as page numbers. */
  private final int[] pathList;
  private final double[] series;
  private final int[] perMinute;
  private final long[] prefix;
  private final int[] loopState;

  private NginxPrelude(long seed) {
    this.seed = seed;
    PythonRandom random = new PythonRandom(seed);

    // status_codes += [s for s in status_codes for i in range(random.randint(10,50))]
    int[] statusCounts = new int[BASE_STATUS_CODES.length];
    int statusTotal = BASE_STATUS_CODES.length;
    for (int s = 0; s < BASE_STATUS_CODES.length; s++) {
      statusCounts[s] = random.randint(10, 50);
      statusTotal += statusCounts[s];
    }
    statusList = new int[statusTotal];
    int at = 0;
    for (int s = 0; s < BASE_STATUS_CODES.length; s++) {
      statusList[at++] = s;
    }
    for (int s = 0; s < BASE_STATUS_CODES.length; s++) {
      for (int i = 0; i < statusCounts[s]; i++) {
        statusList[at++] = s;
      }
    }

    // paths += [p for p in random.sample(paths, 20) for i in range(random.randint(10,50))]
    int[] sampled = random.sampleIndices(BASE_PATHS, 20);
    int[] pathCounts = new int[sampled.length];
    int pathTotal = BASE_PATHS;
    for (int p = 0; p < sampled.length; p++) {
      pathCounts[p] = random.randint(10, 50);
      pathTotal += pathCounts[p];
    }
    pathList = new int[pathTotal];
    at = 0;
    for (int p = 0; p < BASE_PATHS; p++) {
      pathList[at++] = p;
    }
    for (int p = 0; p < sampled.length; p++) {
      for (int i = 0; i < pathCounts[p]; i++) {
        pathList[at++] = sampled[p];
      }
    }

    // series.append(abs(val) * random.randint(8,40)*1000), left to right as Python evaluates it
    series = new double[SERIES_POINTS];
    double variance = 0;
    for (int i = 0; i < SERIES_POINTS; i++) {
      variance += (random.random() - 0.5) / 10;
      double val = StrictMath.cos(i / 10.0) + variance;
      double r = random.randint(8, 40);
      series[i] = Math.abs(val) * r * 1000;
    }

    perMinute = interpolate(series);
    prefix = new long[MINUTES + 1];
    for (int m = 0; m < MINUTES; m++) {
      prefix[m + 1] = prefix[m] + perMinute[m];
    }
    loopState = random.state();
  }

  /**
   * pandas' {@code interpolate(method='linear')} (numpy's {@code interp} with pre-computed slopes)
   * over a 44,640-point array holding the series every 144 points, then {@code astype(int)}.
   * The minutes after the last point take its value (interp clamps on the right).
   */
  static int[] interpolate(double[] series) {
    double[] slopes = new double[series.length - 1];
    for (int j = 0; j < slopes.length; j++) {
      slopes[j] = (series[j + 1] - series[j]) / ((double) ((j + 1) * SERIES_SPACING) - (double) (j * SERIES_SPACING));
    }
    int last = (series.length - 1) * SERIES_SPACING;
    int[] counts = new int[MINUTES];
    for (int m = 0; m < MINUTES; m++) {
      double y;
      if (m % SERIES_SPACING == 0 && m <= last) {
        y = series[m / SERIES_SPACING];
      } else if (m > last) {
        y = series[series.length - 1];
      } else {
        int j = m / SERIES_SPACING;
        y = slopes[j] * ((double) m - (double) (j * SERIES_SPACING)) + series[j];
      }
      counts[m] = (int) y;
    }
    return counts;
  }

  private static final java.util.concurrent.ConcurrentHashMap<Long, NginxPrelude> CACHE =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The prelude for {@code seed} (computed once per JVM). */
  public static NginxPrelude of(long seed) {
    return CACHE.computeIfAbsent(seed, NginxPrelude::new);
  }

  public long seed() {
    return seed;
  }

  /** Weighted status list, as indices into {@link #statusCode(int)}. */
  int[] statusList() {
    return statusList;
  }

  /** Weighted path list, as page numbers. */
  int[] pathList() {
    return pathList;
  }

  /** The HTTP status of distinct status index {@code s} (0 to 5). */
  public static int statusCode(int s) {
    return BASE_STATUS_CODES[s];
  }

  public double[] series() {
    return series.clone();
  }

  /** Lines in minute {@code m} (0 = 2021-05-01 00:00 local). */
  public int linesInMinute(int m) {
    return perMinute[m];
  }

  /** Lines before minute {@code m}; {@code m} may be {@link #MINUTES}. */
  public long linesBefore(int m) {
    return prefix[m];
  }

  public long totalLines() {
    return prefix[MINUTES];
  }

  /** Minute holding line {@code index}: the last m with linesBefore(m) <= index. */
  public int minuteOf(long index) {
    int lo = 0;
    int hi = MINUTES - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (prefix[mid] <= index) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** The Mersenne Twister state at the first line of the loop. */
  int[] loopState() {
    return loopState.clone();
  }
}
