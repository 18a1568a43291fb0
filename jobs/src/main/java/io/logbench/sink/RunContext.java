package io.logbench.sink;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schedule.ExpectedCounts;
import java.io.Serializable;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What senders and count readers know of the run they serve: its id (stamped on every line where
 * the backend allows, and filtered by when counting, so runs never mix), the streams its lines are
 * spread over, and, where known, the dataset and the run's first line.
 *
 * @param runId the run's id, or null for none (lines not stamped, counts not filtered)
 * @param streams the stream labels of the run's lines
 * @param dataset the run's dataset, or null when only the streams are known
 * @param firstIndex dataset index (global sequence id) of the run's first line
 * @param times the run's timeline and start (the timestamp every line carries), or null when
 *     only the dataset's own times are known
 */
public record RunContext(String runId, StreamCatalog streams, Dataset dataset, long firstIndex, ExpectedCounts times)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /**
   * The field (or label) that carries the run's id on every line of the backends that take one
   * beside the line: Elasticsearch/OpenSearch, VictoriaLogs, Splunk and Loki.
   */
  public static final String RUN_FIELD = "logbench_run";

  /**
   * What a run id may hold: letters, digits, '.', '_' and '-', which every backend takes as a
   * label value, a term, a header and a file name, unescaped.
   */
  public static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  public RunContext {
    Objects.requireNonNull(streams, "streams");
    if (runId != null && !RUN_ID.matcher(runId).matches()) {
      throw new IllegalArgumentException(
          "A run id is 1 to 128 letters, digits, '.', '_' or '-', not \"" + runId + "\".");
    }
  }

  /** A run of {@code dataset} without a known timeline (lines carry the dataset's own times). */
  public RunContext(String runId, StreamCatalog streams, Dataset dataset, long firstIndex) {
    this(runId, streams, dataset, firstIndex, null);
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
    return new RunContext(id, streams, dataset, firstIndex, times);
  }

  /** The same run with its timeline and start. */
  public RunContext withTimes(ExpectedCounts runTimes) {
    return new RunContext(runId, streams, dataset, firstIndex, runTimes);
  }

  /**
   * The timestamp line {@code seq} carries in this run: its dataset time mapped through the run's
   * timeline, or the dataset time itself when no timeline is known.
   */
  public long lineMillis(long seq) {
    long own = dataset.timestampMillis(seq);
    return times == null ? own : times.timeline().lineMillis(seq - firstIndex, own, times.runStartMillis());
  }

  /** The sequence id of the run's first line stamped at or after {@code epochMillis}. */
  public long firstSeqAtOrAfter(long epochMillis) {
    long before = times == null ? dataset.countBefore(epochMillis) - firstIndex : times.countBefore(epochMillis);
    return firstIndex + Math.max(0, before);
  }

  /** The sequence id after the run's last line. */
  public long endSeq() {
    return times == null ? dataset.size() : firstIndex + times.total();
  }
}
