package io.logbench.sink;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.StreamCatalog;
import java.io.Serializable;
import java.util.Objects;

/**
 * What senders and count readers know of the run they serve: its id (stamped on every line where
 * the backend allows, and filtered by when counting, so runs never mix), the streams its lines are
 * spread over, and, where known, the dataset and the run's first line.
 *
 * @param runId the run's id, or null for none (lines not stamped, counts not filtered)
 * @param streams the stream labels of the run's lines
 * @param dataset the run's dataset, or null when only the streams are known
 * @param firstIndex dataset index (global sequence id) of the run's first line
 */
public record RunContext(String runId, StreamCatalog streams, Dataset dataset, long firstIndex)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public RunContext {
    Objects.requireNonNull(streams, "streams");
  }

  /** Lines of {@code streams}, no run id, no dataset (for tests and tools). */
  public static RunContext of(StreamCatalog streams) {
    return new RunContext(null, streams, null, 0);
  }

  /** The run of {@code dataset} from {@code firstIndex}, with no run id. */
  public static RunContext of(Dataset dataset, long firstIndex) {
    return new RunContext(null, dataset.streams(), dataset, firstIndex);
  }

  /** The same run with id {@code id}. */
  public RunContext withRunId(String id) {
    return new RunContext(id, streams, dataset, firstIndex);
  }
}
