package io.logbench.sink;

import io.logbench.count.CountReader;
import io.logbench.count.SeqCounter;
import io.logbench.count.VisibilityProbe;
import io.logbench.count.internal.ReadingProbe;
import io.logbench.dataset.LineBatch;
import io.logbench.query.KeyedSearch;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * One backend block of a run file, checked: what the backend is ({@link #kind}, {@link #name},
 * {@link #capabilities}), how batches reach it ({@link #open} a sender, or its own {@link
 * #deliver} wiring), what to check before a run ({@link #preflight}), how to count its lines
 * back ({@link #openCounter}), how to poll them until visible ({@link #openProbe}) and how to search them by a label ({@link #openSearch}). Each
 * backend declares these once, here; the jobs and the verifier never ask for a backend's type or
 * kind name. Secrets (tokens, passwords) are read from the environment or files when a sender or
 * reader opens, never held in the spec, logged or reported.
 */
public interface BackendSpec extends Serializable {

  /** The backend's kind, e.g. {@code loki}. */
  String kind();

  /** The name of this backend in reports and the ledger (unique within a run), e.g. {@code loki}. */
  String name();

  /** What this backend can do; by default it only takes lines. */
  default Capabilities capabilities() {
    return Capabilities.sendOnly();
  }

  /** Opens a sender for the lines of {@code run}. */
  BatchSender open(RunContext run);

  /**
   * The longest the answer to one send through {@link #open}'s sender may take when one request
   * may take {@code requestTimeout} (the {@code timeout} key): by default the request timeout
   * itself. A sender whose answer waits for more than one request overrides it (Splunk with
   * indexer acknowledgement: the request, then the ack wait up to {@code ack_timeout}). The sender
   * keeps its own deadlines and answers a send that misses them as a retryable failure with its
   * own reason; the delivery counts a send with no answer after this long as a {@code timeout},
   * a safety net for a sender that broke its promise (Flink's async operator has no timeout of
   * its own: this deadline is what ends a send that never answers).
   */
  default Duration answerTimeout(Duration requestTimeout) {
    return requestTimeout;
  }

  /**
   * Whether {@link #open}'s sender writes every line inside a JSON string (default false), so the
   * run's source makes the lines escaped for it when the dataset can ({@link
   * LineBatch#jsonEscaped()}) and the sender copies them instead of escaping each byte. Such a
   * sender also takes raw batches (from a dataset that cannot, or read back from Kafka) and
   * escapes those; one that says false only ever gets raw ones.
   */
  default boolean jsonStringLines() {
    return false;
  }

  /**
   * Wires the delivery of {@code batches} to this backend and returns one outcome per batch: by
   * default the job's asynchronous requests through the sender {@link #open} gives, under the
   * backend's delivery mode ({@link DeliveryContext#requests}); a backend that writes through its
   * own operator or sink overrides it.
   */
  default DataStream<BatchOutcome> deliver(DataStream<LineBatch> batches, DeliveryContext context) {
    return context.requests().apply(this, context, batches);
  }

  /**
   * Whether the run's source must keep its input open, after its last batch, until a checkpoint
   * taken after that batch completes (default false): a backend whose {@link #deliver} reports a
   * batch only when a checkpoint commits it (exactly-once Kafka) then reports the run's last
   * batches before the end of input reaches the ledger. The generate job always checkpoints.
   */
  default boolean endsAfterCheckpoint() {
    return false;
  }

  /**
   * Checks, before a run starts, what would make it fail, silently lose lines or mix them with
   * another run's: returns warnings to print, each a full sentence naming the backend (such as
   * lines older than the backend keeps, or lines of other runs already in the run's time range,
   * {@link Preflight#otherRuns}), and throws with a full sentence when the run cannot work (such
   * as a Kafka topic that does not exist).
   *
   * @param before what is known of the run before it starts
   */
  default List<String> preflight(Preflight before) throws IOException {
    return List.of();
  }

  /**
   * Opens a reader that counts the lines of {@code run} this backend holds, per window; only for
   * backends whose {@link #capabilities} say {@code countable}.
   */
  default CountReader openCounter(RunContext run) {
    throw new UnsupportedOperationException("The " + kind() + " backend " + name() + " cannot count its lines back.");
  }

  /**
   * Why this backend, as configured, cannot count its lines back (a phrase), or null when it can:
   * by default when its {@link #capabilities} say it is not countable; a backend that counts only
   * with settings of its own (Splunk's search credentials) says which are missing.
   */
  default String countUnavailable() {
    return capabilities().countable() ? null : "the " + kind() + " backend cannot count its lines back";
  }

  /**
   * Opens the keyed search of the run's lines in this backend's own language (count by a stream
   * label per time bucket, the case study's searches, see {@code query}); only for backends whose
   * {@link #capabilities} say {@code countable}.
   */
  default KeyedSearch openSearch(RunContext run) {
    throw new UnsupportedOperationException("The " + kind() + " backend " + name() + " cannot search its lines.");
  }

  /**
   * Opens the probe of {@code generate}'s write-to-visible polls: one that sees what a user's
   * search would see now, and answers later instead of blocking its caller. By default the count
   * reader ({@link #openProbeReader}) read on a thread of the probe's own; an HTTP backend
   * overrides it with one request a poll round on the non-blocking transport.
   */
  default VisibilityProbe openProbe(RunContext run) {
    return new ReadingProbe(openProbeReader(run), capabilities().lineIds() == Capabilities.LineIds.NANOSECOND_OFFSET,
        "logbench-visibility-" + name());
  }

  /**
   * The reader behind the default {@link #openProbe}: by default the count reader; a backend
   * whose count reader forces something first (OpenSearch's refresh before each count) overrides
   * it with one that does not, or the polls would measure the forcing, not the backend.
   */
  default CountReader openProbeReader(RunContext run) {
    return openCounter(run);
  }

  /**
   * What the backend says it stores after the run, where it reports it (an index's store size, a
   * metric of its data size, log segments, files on disk); empty when it does not. The figure may
   * cover more than the run (other runs in the same index or topic): its {@link Footprint#source}
   * says what it covers.
   *
   * @throws IOException when the backend does not answer
   */
  default Optional<Footprint> footprint(RunContext run) throws IOException {
    return Optional.empty();
  }

  /**
   * The write this backend's lines go through, when it only counts what another write delivers
   * (a pipeline: logbench writes a file, an agent ships it here); null, the default, when the
   * backend writes its lines itself. Backends that name the same write share its one pipeline
   * and its acknowledgements.
   */
  default BackendConfig write() {
    return null;
  }

  /**
   * The name this backend's lines are delivered under: its own, or its pipeline's write's. The
   * sources' leases and the restore records are the delivery's, so a count block behind a write
   * finds them under the write's name.
   */
  default String deliveredAs() {
    return write() == null ? name() : write().name();
  }

  /**
   * Opens a counter of the run's lines by the sequence id in their bodies ({@link SeqCounter}),
   * for a count block behind a pipeline's write; only where {@link #seqCountUnavailable} is null.
   */
  default SeqCounter openSeqCounter(RunContext run) {
    throw new UnsupportedOperationException("The " + kind() + " backend " + name()
        + " cannot count lines by the sequence id in their bodies.");
  }

  /**
   * Why this backend cannot count lines by the sequence id in their bodies (a phrase), or null
   * when it can; by default it cannot.
   */
  default String seqCountUnavailable() {
    return "the " + kind() + " backend cannot count lines by the sequence id in their bodies";
  }
}
