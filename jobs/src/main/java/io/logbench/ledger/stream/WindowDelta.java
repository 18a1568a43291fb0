package io.logbench.ledger.stream;

import io.logbench.sink.BatchOutcome;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One batch's share of one (backend, window), or a seed that only says the window exists (so a
 * window no batch reached still gets a row with its expected count).
 *
 * @param backend backend name
 * @param windowStartMillis start of the window
 * @param sent lines sent (aborted lines, never sent, are not)
 * @param acked lines acknowledged
 * @param rejected lines rejected, by reason
 * @param seed true for a seed (no lines)
 */
public record WindowDelta(
    String backend, long windowStartMillis, long sent, long acked, Map<String, Long> rejected, boolean seed)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public WindowDelta {
    rejected = rejected == null ? new HashMap<>() : new HashMap<>(rejected);
  }

  /** A seed for the window starting at {@code windowStartMillis}. */
  public static WindowDelta seed(String backend, long windowStartMillis) {
    return new WindowDelta(backend, windowStartMillis, 0, 0, new HashMap<>(), true);
  }

  /**
   * A batch outcome's shares of its windows. Lines aborted by a load-test threshold were never
   * sent: they are not counted as sent, only as rejected with reason {@value
   * BatchOutcome#ABORTED_REASON}.
   */
  public static List<WindowDelta> of(BatchOutcome outcome) {
    List<WindowDelta> out = new ArrayList<>(outcome.windows().size());
    for (BatchOutcome.WindowTally w : outcome.windows()) {
      HashMap<String, Long> rejected = new HashMap<>();
      w.rejected().forEach((reason, n) -> rejected.merge(reason, (long) n, Long::sum));
      long sent = w.sent() - w.rejected().getOrDefault(BatchOutcome.ABORTED_REASON, 0);
      out.add(new WindowDelta(outcome.backend(), w.windowStartMillis(), sent, w.acked(), rejected, false));
    }
    return out;
  }

  /** The key of the (backend, window) it belongs to. */
  public String key() {
    return windowKey(backend, windowStartMillis);
  }

  /** The key of a (backend, window): NUL cannot occur in a backend name from a run file. */
  public static String windowKey(String backend, long windowStartMillis) {
    return backend + '\u0000' + windowStartMillis;
  }
}
