package io.logbench.dataset;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link KeyedCounts} that counts in pieces: the span of the ranges is cut at multiples of a
 * piece size, each piece is counted by a fresh {@link Counter} (on a pool of threads made for
 * the call), and the pieces' rows are added up. A dataset supplies the counter and the piece
 * size at which a counter starts cheaply, such as the interval of nginx-month's recorded
 * generator states, so pieces start where no earlier line has to be drawn.
 */
public abstract class RangeCounts implements KeyedCounts {

  /** The most counts (ranges times values) one call returns, so a typo fails loudly. */
  public static final long MAX_CELLS = 20_000_000L;

  /** Pieces in flight per thread: enough to keep threads busy, few enough to bound memory. */
  private static final int QUEUED_PER_THREAD = 4;

  private static final AtomicInteger POOLS = new AtomicInteger();

  private final String key;
  private final List<String> values;
  private final long datasetSize;
  private final long pieceLines;

  /**
   * Counts of {@code key} over a dataset of {@code datasetSize} lines, in pieces of {@code
   * pieceLines} lines aligned to multiples of it.
   */
  protected RangeCounts(String key, List<String> values, long datasetSize, long pieceLines) {
    if (pieceLines < 1) {
      throw new IllegalArgumentException(
          "A piece must hold at least one line, not " + pieceLines + ".");
    }
    this.key = key;
    this.values = List.copyOf(values);
    this.datasetSize = datasetSize;
    this.pieceLines = pieceLines;
  }

  /** Counts the lines of one piece, one range after the next; used by one thread only. */
  protected interface Counter {

    /**
     * Adds to {@code into[v]} the number of lines of {@code [from, to)} whose field has value
     * {@code v}. A call's {@code from} is where the previous call ended, except on the first call.
     */
    void add(long from, long to, long[] into);
  }

  /** A new counter, for one piece. */
  protected abstract Counter counter();

  /**
   * Threads to count lines {@code [from, to)} on when {@code asked} were asked for; by default
   * those asked. A dataset whose pieces are cheaper one after the other (each starting where the
   * last one ended) answers fewer.
   */
  protected int threads(long from, long to, int asked) {
    return asked;
  }

  @Override
  public final String key() {
    return key;
  }

  @Override
  public final List<String> values() {
    return values;
  }

  @Override
  public final long[][] count(long[] bounds, int parallelism) {
    check(bounds);
    int ranges = bounds.length - 1;
    long[][] counts = new long[ranges][values.size()];
    if (ranges == 0 || bounds[0] == bounds[ranges]) {
      return counts;
    }
    long firstPiece = bounds[0] / pieceLines;
    long endPiece = (bounds[ranges] - 1) / pieceLines + 1;
    int asked = threads(bounds[0], bounds[ranges], parallelism);
    int threads = (int) Math.max(1, Math.min(asked, endPiece - firstPiece));
    if (threads == 1) {
      for (long p = firstPiece; p < endPiece; p++) {
        long[] piece = piece(p, bounds);
        countPiece(piece[0], piece[1], bounds, counts, 0);
      }
      return counts;
    }
    String prefix = "keyed-counts-" + POOLS.incrementAndGet() + "-";
    AtomicInteger made = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, prefix + made.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    ExecutorService pool = Executors.newFixedThreadPool(threads, factory);
    try {
      ArrayDeque<Future<Partial>> inFlight = new ArrayDeque<>();
      for (long p = firstPiece; p < endPiece; p++) {
        long[] piece = piece(p, bounds);
        inFlight.add(pool.submit(() -> partial(piece[0], piece[1], bounds)));
        if (inFlight.size() >= threads * QUEUED_PER_THREAD) {
          merge(inFlight.poll(), counts);
        }
      }
      while (!inFlight.isEmpty()) {
        merge(inFlight.poll(), counts);
      }
    } finally {
      pool.shutdownNow();
    }
    return counts;
  }

  /** Lines {@code [from, to)} of piece {@code p}, cut to the ranges' span. */
  private long[] piece(long p, long[] bounds) {
    long from = Math.max(bounds[0], p * pieceLines);
    long to = Math.min(bounds[bounds.length - 1], (p + 1) * pieceLines);
    return new long[] {from, to};
  }

  /** The rows of the ranges a piece overlaps, the first being range {@code first}. */
  private record Partial(int first, long[][] rows) {}

  private Partial partial(long from, long to, long[] bounds) {
    int first = rangeHolding(bounds, from);
    int last = rangeHolding(bounds, to - 1);
    long[][] rows = new long[last - first + 1][values.size()];
    countPiece(from, to, bounds, rows, first);
    return new Partial(first, rows);
  }

  /** Counts lines [from, to) into {@code rows[w - offset]} for each range w they fall in. */
  private void countPiece(long from, long to, long[] bounds, long[][] rows, int offset) {
    Counter counter = counter();
    long at = from;
    for (int w = rangeHolding(bounds, from); at < to; w++) {
      long end = Math.min(to, bounds[w + 1]);
      if (end > at) {
        counter.add(at, end, rows[w - offset]);
        at = end;
      }
    }
  }

  /** The range holding line {@code index}: the w with bounds[w] <= index < bounds[w + 1]. */
  private static int rangeHolding(long[] bounds, long index) {
    int lo = 0;
    int hi = bounds.length - 2;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (bounds[mid] <= index) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  private static void merge(Future<Partial> future, long[][] counts) {
    Partial partial;
    try {
      partial = future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while counting lines.", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("Counting lines failed: " + e.getCause(), e.getCause());
    }
    for (int k = 0; k < partial.rows().length; k++) {
      long[] into = counts[partial.first() + k];
      long[] row = partial.rows()[k];
      for (int v = 0; v < row.length; v++) {
        into[v] += row[v];
      }
    }
  }

  private void check(long[] bounds) {
    if (bounds.length == 0) {
      throw new IllegalArgumentException("Counting lines by " + key + " needs at least one bound.");
    }
    long cells = (long) (bounds.length - 1) * values.size();
    if (cells > MAX_CELLS) {
      throw new IllegalArgumentException(
          (bounds.length - 1) + " ranges by " + key + " (" + values.size() + " values) make "
              + cells + " counts, more than the " + MAX_CELLS + " one call returns.");
    }
    if (bounds[0] < 0 || bounds[bounds.length - 1] > datasetSize) {
      throw new IllegalArgumentException(
          "Lines [" + bounds[0] + ", " + bounds[bounds.length - 1] + ") are not within the "
              + datasetSize + " lines of the dataset.");
    }
    for (int w = 1; w < bounds.length; w++) {
      if (bounds[w] < bounds[w - 1]) {
        throw new IllegalArgumentException(
            "Range bounds must not decrease, but bound " + w + " (" + bounds[w]
                + ") is before bound " + (w - 1) + " (" + bounds[w - 1] + ").");
      }
    }
  }
}
