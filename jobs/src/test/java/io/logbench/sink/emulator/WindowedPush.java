package io.logbench.sink.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.Probes;
import io.logbench.count.VisibilityProbe;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Pushes app-json lines through a real sender, one batch per window, and knows how many lines
 * (and which sequence ids) each window holds, from the dataset's own arithmetic.
 */
public final class WindowedPush {

  private final AppJsonDataset dataset;
  private final long fromMillis;
  private final long windowMillis;
  private final int windows;

  /**
   * @param startMillis time of the dataset's first line
   * @param rate lines per second
   * @param lines lines in the dataset
   * @param fromMillis first window's start (at or before the first line)
   * @param windowMillis window size
   * @param windows number of windows
   */
  public WindowedPush(
      long startMillis, long rate, long lines, long fromMillis, long windowMillis, int windows) {
    this.dataset = AppJsonDataset.builder().startMillis(startMillis).rate(rate)
        .lines(lines).streams(5).build();
    this.fromMillis = fromMillis;
    this.windowMillis = windowMillis;
    this.windows = windows;
  }

  public AppJsonDataset dataset() {
    return dataset;
  }

  /** Index of the first line at or after window {@code k}'s start. */
  public long firstIndex(int k) {
    return Math.min(dataset.size(), dataset.countBefore(fromMillis + k * windowMillis));
  }

  /** Lines the dataset puts in each window. */
  public long[] expected() {
    long[] out = new long[windows];
    for (int k = 0; k < windows; k++) {
      out[k] = firstIndex(k + 1) - firstIndex(k);
    }
    return out;
  }

  /** Sequence ids of window {@code k}. */
  public List<Long> ids(int k) {
    List<Long> out = new ArrayList<>();
    for (long i = firstIndex(k); i < firstIndex(k + 1); i++) {
      out.add(i);
    }
    return out;
  }

  /** The batch of window {@code k}: its lines, with their dataset index as sequence id. */
  public LineBatch batch(int k) {
    LineBatch b = new LineBatch();
    long first = firstIndex(k);
    b.reset(k, first);
    LineCursor c = dataset.cursor(first);
    for (long i = first; i < firstIndex(k + 1); i++) {
      c.next(b);
    }
    return b;
  }

  /** Sends window {@code k}'s batch and fails unless it was accepted whole. */
  public static void sendAccepted(BatchSender sender, LineBatch batch) {
    SendResult r = sender.send(batch).join();
    if (r.accepted() != batch.count()) {
      throw new AssertionError("The emulator did not accept the batch: " + r);
    }
  }

  /** Sends every window's batch. */
  public void sendAll(BatchSender sender) {
    for (int k = 0; k < windows; k++) {
      sendAccepted(sender, batch(k));
    }
  }

  /**
   * Asserts that {@code probe}, after {@link #sendAll}, counts several samples in one request, each
   * exactly its lines (keep a line every 50 ms or more, so that no sample shares a millisecond with
   * another line), one after the data's last line counting none, and the run's lines in {@code
   * [from, to)}.
   */
  public void assertProbeCounts(VisibilityProbe probe, long from, long to, long window, String describe)
      throws Exception {
    long end = dataset.timestampMillis(dataset.size() - 1);
    long n = dataset.size();
    VisibilityProbe.Sample after = new VisibilityProbe.Sample(n, 20, LineBatch.distinctNanos(end + 50, n),
        LineBatch.distinctNanos(end + 1_000, n + 19));
    assertThat(Probes.counts(probe, List.of(Probes.sample(dataset, 100, 50), Probes.sample(dataset, 2_000, 100),
        Probes.sample(dataset, n - 10, 10), after, Probes.sample(dataset, 150, 1))))
        .as(describe).containsExactly(50, 100, 10, 0, 1);
    assertThat(Probes.run(probe, from, to, window)).as(describe).isEqualTo(n);
  }
}
