package io.logbench.count.internal;

import io.logbench.count.CountReader;
import io.logbench.count.LineIds;
import io.logbench.count.VisibilityProbe;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link VisibilityProbe} over a blocking {@link CountReader}, for backends without a probe of
 * their own (Kafka and files, whose reads pass over the whole topic or day files; Splunk's search
 * jobs; Elasticsearch): every read runs on one daemon thread, started by the first one, so the
 * caller never waits. A sample is counted by the ids read back over its time range ({@link
 * CountReader#sequenceIds}), each id once ({@link Reach#LINES}); nearby samples, spanning at most
 * {@value #GROUP_SPAN} lines, share one read, and every sample shares one when the reader {@link
 * CountReader#scans} (any read costs it a whole pass).
 */
public final class ReadingProbe implements VisibilityProbe {

  /** Most lines between the first and the last line of the samples read at once. */
  public static final long GROUP_SPAN = 50_000;

  private final CountReader reader;
  private final boolean idsFromNanos;
  private final String threadName;
  private ExecutorService thread;
  private boolean closed;

  /**
   * @param idsFromNanos the reader lists {@code seq mod 999,999} ({@link LineIds#fromNanos}) rather
   *     than whole sequence ids
   * @param threadName the name of the thread the reads run on
   */
  public ReadingProbe(CountReader reader, boolean idsFromNanos, String threadName) {
    this.reader = reader;
    this.idsFromNanos = idsFromNanos;
    this.threadName = threadName;
  }

  @Override
  public Reach reach() {
    return Reach.LINES;
  }

  @Override
  public void countSamples(List<Sample> samples, Answer answer) {
    List<Sample> copy = List.copyOf(samples);
    run(answer, () -> {
      long[] counts = new long[copy.size()];
      int at = 0;
      for (List<Sample> group : groups(copy, reader.scans())) {
        System.arraycopy(read(group), 0, counts, at, group.size());
        at += group.size();
      }
      return counts;
    });
  }

  @Override
  public void countRun(long fromMillis, long toMillis, long windowMillis, Answer answer) {
    run(answer, () -> {
      long total = 0;
      if (toMillis > fromMillis) {
        for (long c : reader.counts(fromMillis, toMillis, windowMillis)) {
          total += c;
        }
      }
      return new long[] {total};
    });
  }

  /** A read that may fail. */
  private interface Read {
    long[] counts() throws Exception;
  }

  private synchronized void run(Answer answer, Read read) {
    if (closed) {
      answer.failed(new IllegalStateException("The visibility probe is closed."));
      return;
    }
    if (thread == null) {
      thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, threadName);
        t.setDaemon(true);
        return t;
      });
    }
    try {
      thread.execute(() -> {
        long[] counts;
        try {
          counts = read.counts();
        } catch (Exception | LinkageError e) {
          answer.failed(e);
          return;
        }
        answer.counted(counts);
      });
    } catch (RejectedExecutionException e) {
      answer.failed(e);
    }
  }

  /**
   * {@code samples} in groups of consecutive ones (in the order given) whose sequence ids span at
   * most {@link #GROUP_SPAN} lines; one group when {@code oneRead}.
   */
  static List<List<Sample>> groups(List<Sample> samples, boolean oneRead) {
    List<List<Sample>> out = new ArrayList<>();
    List<Sample> group = null;
    long lo = 0;
    long hi = 0;
    for (Sample s : samples) {
      long a = Math.min(lo, s.firstSeq());
      long b = Math.max(hi, s.firstSeq() + s.lines());
      if (group == null || (!oneRead && b - a > GROUP_SPAN)) {
        group = new ArrayList<>();
        out.add(group);
        lo = s.firstSeq();
        hi = s.firstSeq() + s.lines();
      } else {
        lo = a;
        hi = b;
      }
      group.add(s);
    }
    return out;
  }

  /** The distinct ids of each sample of {@code group} read back in one read over their time span. */
  private long[] read(List<Sample> group) throws Exception {
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    for (Sample s : group) {
      from = Math.min(from, s.fromMillis());
      to = Math.max(to, s.toMillis());
      lo = Math.min(lo, s.firstSeq());
      hi = Math.max(hi, s.firstSeq() + s.lines());
    }
    // room for the neighbours' lines in the same milliseconds and for copies
    int limit = (int) Math.min(Integer.MAX_VALUE - 8, 2L * (hi - lo) + 10_000);
    List<Long> ids = reader.sequenceIds(from, to, limit);
    BitSet[] found = new BitSet[group.size()];
    for (int k = 0; k < found.length; k++) {
      found[k] = new BitSet(group.get(k).lines());
    }
    for (long raw : ids) {
      long id = raw;
      if (idsFromNanos && raw >= 0) {
        // the modulus is far larger than a group's span: one id of the span maps to each offset
        id = lo + Math.floorMod(raw - lo, LineIds.MODULUS);
      }
      for (int k = 0; k < found.length; k++) {
        Sample s = group.get(k);
        if (id >= s.firstSeq() && id < s.firstSeq() + s.lines()) {
          found[k].set((int) (id - s.firstSeq()));
          break;
        }
      }
    }
    long[] counts = new long[found.length];
    for (int k = 0; k < found.length; k++) {
      counts[k] = found[k].cardinality();
    }
    return counts;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (thread != null) {
      thread.shutdownNow();
    }
    reader.close();
  }
}
