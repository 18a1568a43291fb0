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
  /** Every stream this JVM has pushed to the target, by key; kept for the frontier's life. */
  private final Map<String, Stream> streams = new HashMap<>();

  /**
   * One stream of the target: the newest line sent to it so far and its lines in pushes not yet
   * answered. A sender looks each of its streams up once ({@link #stream}) and admits pushes with
   * the objects, without a look-up by key per push. Read and changed under the frontier's lock.
   */
  public static final class Stream {
    private final String key;
    private boolean sent;
    private long newestNanos;
    /** The pushes of this stream not yet answered (compared by identity). */
    private final List<InFlight> inFlight = new ArrayList<>(2);

    private Stream(String key) {
      this.key = key;
    }

    @Override
    public String toString() {
      return key;
    }
  }

  /** A stream's lines in a push not yet answered. */
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

  /** The stream of this target whose key (its labels as Loki reads them) is {@code key}. */
  public synchronized Stream stream(String key) {
    return streams.computeIfAbsent(key, Stream::new);
  }

  /**
   * What a push may do: wait for {@link #waitFor} (non-null: nothing was registered; ask again once
   * they are done), or go, with the streams in {@link #alone} pushed one per request ({@link
   * #anyAlone} says whether there is one); {@link LokiFrontier#answered} is to be called when every
   * request of the push is answered.
   */
  public record Admission(CompletableFuture<?>[] waitFor, boolean[] alone, boolean anyAlone,
      CompletableFuture<Void> done, Stream[] streams, Object[] entries) {}

  /**
   * Admits a push of the streams {@code streams} whose lines span {@code oldest[i]} to {@code
   * newest[i]} (epoch ns). An admission keeps {@code streams}: the caller does not change it after.
   */
  public synchronized Admission admit(Stream[] streams, long[] oldest, long[] newestOfPush) {
    List<CompletableFuture<Void>> blockers = null;
    for (int i = 0; i < streams.length; i++) {
      List<InFlight> pending = streams[i].inFlight;
      for (int j = 0; j < pending.size(); j++) {
        InFlight f = pending.get(j);
        if (f.oldestNanos < newestOfPush[i] - windowNanos) {
          if (blockers == null) {
            blockers = new ArrayList<>();
          }
          blockers.add(f.done);
        }
      }
    }
    if (blockers != null) {
      return new Admission(blockers.toArray(new CompletableFuture<?>[0]), null, false, null, null, null);
    }
    boolean[] alone = new boolean[streams.length];
    boolean anyAlone = false;
    CompletableFuture<Void> done = new CompletableFuture<>();
    InFlight[] mine = new InFlight[streams.length];
    for (int i = 0; i < streams.length; i++) {
      Stream s = streams[i];
      alone[i] = s.sent && oldest[i] < s.newestNanos - windowNanos;
      anyAlone |= alone[i];
      s.newestNanos = s.sent ? Math.max(s.newestNanos, newestOfPush[i]) : newestOfPush[i];
      s.sent = true;
      mine[i] = new InFlight(oldest[i], done);
      s.inFlight.add(mine[i]);
    }
    return new Admission(null, alone, anyAlone, done, streams, mine);
  }

  /**
   * Ends the admitted push {@code a} once every request of it is answered: its streams are no
   * longer in flight, then the pushes waiting for it are let go.
   */
  public void answered(Admission a) {
    synchronized (this) {
      for (int i = 0; i < a.streams().length; i++) {
        List<InFlight> pending = a.streams()[i].inFlight;
        for (int j = 0; j < pending.size(); j++) {
          if (pending.get(j) == a.entries()[i]) {
            pending.remove(j);
            break;
          }
        }
      }
    }
    a.done().complete(null);
  }
}
