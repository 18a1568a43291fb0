package io.logbench.count;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Test helpers: a {@link VisibilityProbe}'s answers waited for, and samples of a dataset's lines. */
public final class Probes {

  private Probes() {}

  /** The lines {@code [first, first + lines)} of {@code dataset} as a sample, stamped as logbench stamps them. */
  public static VisibilityProbe.Sample sample(Dataset dataset, long first, int lines) {
    long last = first + lines - 1;
    return new VisibilityProbe.Sample(first, lines, LineBatch.distinctNanos(dataset.timestampMillis(first), first),
        LineBatch.distinctNanos(dataset.timestampMillis(last), last));
  }

  /** {@link VisibilityProbe#countSamples}, waited for (30 s at most); a failed answer is thrown. */
  public static long[] counts(VisibilityProbe probe, List<VisibilityProbe.Sample> samples) throws Exception {
    CompletableFuture<long[]> f = new CompletableFuture<>();
    probe.countSamples(samples, answer(f));
    return f.get(30, TimeUnit.SECONDS);
  }

  /** {@link VisibilityProbe#countRun}, waited for (30 s at most). */
  public static long run(VisibilityProbe probe, long fromMillis, long toMillis, long windowMillis) throws Exception {
    CompletableFuture<long[]> f = new CompletableFuture<>();
    probe.countRun(fromMillis, toMillis, windowMillis, answer(f));
    return f.get(30, TimeUnit.SECONDS)[0];
  }

  private static VisibilityProbe.Answer answer(CompletableFuture<long[]> f) {
    return new VisibilityProbe.Answer() {
      @Override
      public void counted(long[] counts) {
        f.complete(counts);
      }

      @Override
      public void failed(Throwable error) {
        f.completeExceptionally(error);
      }
    };
  }
}
