package io.logbench.sink;

import io.logbench.dataset.StreamCatalog;
import java.io.Serializable;

/**
 * One backend block of a run file, checked, and able to open senders for it inside a Flink task.
 * Secrets (tokens, passwords) are read from the environment or files when a sender opens, never
 * held in the spec, logged or reported.
 */
public interface BackendSpec extends Serializable {

  /** The backend's kind, e.g. {@code loki}. */
  String kind();

  /** The name of this backend in reports and the ledger (unique within a run), e.g. {@code loki}. */
  String name();

  /** Opens a sender for lines of the given streams. */
  BatchSender open(StreamCatalog streams);

  /**
   * Checks, before a run starts, what would make it fail or silently lose lines: returns
   * warnings to print (such as lines older than the backend keeps), and throws with a full
   * sentence when the run cannot work (such as a Kafka topic that does not exist).
   *
   * @param oldestLineMillis timestamp of the run's oldest line
   */
  default java.util.List<String> preflight(long oldestLineMillis) throws java.io.IOException {
    return java.util.List.of();
  }

  /** Opens a reader that counts this backend's lines of the given streams back, per window. */
  default io.logbench.count.CountReader openCounter(StreamCatalog streams) {
    throw new UnsupportedOperationException("The " + kind() + " backend cannot count its lines back yet.");
  }
}
