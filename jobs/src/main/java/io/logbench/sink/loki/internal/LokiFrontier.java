package io.logbench.sink.loki.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this JVM's pushes to one Loki tenant have sent each stream, so that a push's answer
 * accounts for every line of it.
 *
 * <p>Loki's ingester answers a push for its <em>last</em> stream only (Loki 3.4.6, {@code
 * instance.Push}: "the returned error only reflects what happened to the last stream in the
 * request"): entries of an earlier stream rejected as too far behind (older than the stream's
 * newest entry minus {@code max_chunk_age / 2}) are dropped while the push is answered 204, or 400
 * naming the last stream's entries alone. So the sender keeps two rules, for every stream of a
 * push, with W the out-of-order window:
 *
 * <ul>
 *   <li>a stream whose oldest line in the push is older than the newest line sent to it so far
 *       minus W may be rejected: it is pushed alone, where the answer is its own ({@link
 *       Admission#alone});
 *   <li>a push whose newest line of a stream is more than W after the oldest line of the stream
 *       in a push still unanswered waits for that answer ({@link Admission#waitFor}), so no push
 *       can overtake an older one and make it too far behind after it was judged safe.
 * </ul>
 *
 * <p>Only this JVM's pushes are known: lines another process (or an earlier run still in the
 * ingester's memory) put in the same streams can still make Loki drop lines of a stream that is not
 * a push's last without saying so.
 */
public final class LokiFrontier {

  /** Loki's out-of-order window with its default {@code ingester.max_chunk_age} of 2 h: 1 h. */
  public static final long DEFAULT_WINDOW_NANOS = 3_600_000_000_000L;

  private static final Map<String, LokiFrontier> BY_TARGET = new ConcurrentHashMap<>();

  private final long windowNanos;
  private final Map<String, Long> newest = new HashMap<>();
  private final Map<String, List<InFlight>> inFlight = new HashMap<>();

  /** A stream's lines in a push not yet answered (compared by identity). */
  private static final class InFlight {
    final long oldestNanos;
    final CompletableFuture<Void> done;

    InFlight(long oldestNanos, CompletableFuture<Void> done) {
      this.oldestNanos = oldestNanos;
      this.done = done;
    }
  }

  public LokiFrontier(long windowNanos) {
    this.windowNanos = windowNanos;
  }

  /** The JVM's frontier of {@code target} (a push URL and tenant), with the default window. */
  public static LokiFrontier of(String target) {
    return BY_TARGET.computeIfAbsent(target, t -> new LokiFrontier(DEFAULT_WINDOW_NANOS));
  }

  /**
   * What a push may do: wait for {@link #waitFor} (non-null: nothing was registered; ask again once
   * they are done), or go, with the streams in {@link #alone} pushed one per request; {@link
   * LokiFrontier#answered} is to be called when every request of the push is answered.
   */
  public record Admission(CompletableFuture<?>[] waitFor, boolean[] alone, CompletableFuture<Void> done,
      String[] keys, Object[] entries) {}

  /**
   * Admits a push of the streams {@code keys} whose lines span {@code oldest[i]} to {@code
   * newest[i]} (epoch ns).
   */
  public synchronized Admission admit(String[] keys, long[] oldest, long[] newestOfPush) {
    List<CompletableFuture<Void>> blockers = new ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      List<InFlight> pending = inFlight.get(keys[i]);
      if (pending == null) {
        continue;
      }
      for (InFlight f : pending) {
        if (f.oldestNanos < newestOfPush[i] - windowNanos) {
          blockers.add(f.done);
        }
      }
    }
    if (!blockers.isEmpty()) {
      return new Admission(blockers.toArray(new CompletableFuture<?>[0]), null, null, null, null);
    }
    boolean[] alone = new boolean[keys.length];
    CompletableFuture<Void> done = new CompletableFuture<>();
    InFlight[] mine = new InFlight[keys.length];
    for (int i = 0; i < keys.length; i++) {
      Long seen = newest.get(keys[i]);
      alone[i] = seen != null && oldest[i] < seen - windowNanos;
      newest.merge(keys[i], newestOfPush[i], Math::max);
      mine[i] = new InFlight(oldest[i], done);
      inFlight.computeIfAbsent(keys[i], k -> new ArrayList<>()).add(mine[i]);
    }
    return new Admission(null, alone, done, keys, mine);
  }

  /**
   * Ends the admitted push {@code a} once every request of it is answered: its streams are no
   * longer in flight, then the pushes waiting for it are let go.
   */
  public void answered(Admission a) {
    synchronized (this) {
      for (int i = 0; i < a.keys().length; i++) {
        List<InFlight> pending = inFlight.get(a.keys()[i]);
        if (pending != null && pending.remove((InFlight) a.entries()[i]) && pending.isEmpty()) {
          inFlight.remove(a.keys()[i]);
        }
      }
    }
    a.done().complete(null);
  }
}
