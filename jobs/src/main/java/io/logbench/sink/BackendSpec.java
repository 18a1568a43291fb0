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

  /** Opens a reader that counts this backend's lines of the given streams back, per window. */
  default io.logbench.count.CountReader openCounter(StreamCatalog streams) {
    throw new UnsupportedOperationException("The " + kind() + " backend cannot count its lines back yet.");
  }
}
