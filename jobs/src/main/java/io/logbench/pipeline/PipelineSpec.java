package io.logbench.pipeline;

import io.logbench.count.CountReader;
import io.logbench.dataset.LineBatch;
import io.logbench.query.KeyedSearch;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.Footprint;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * A count block behind a pipeline's write ({@code write:}): logbench writes through {@code
 * write} (a file an agent tails, syslog, OTLP, or any sender into an agent) and counts what the
 * agent delivered to {@code count}, by the run id and sequence id stamped in each line's body
 * ({@link LineStamp}, {@link SeqWindowReader}). Its name and kind are the count block's; sending
 * is the write's.
 *
 * @param count the count block's own backend
 * @param write the write its lines go through (shared by every count block naming it)
 * @param lag how long after its own timestamp a line may reach {@code count} (the {@code lag} key)
 */
public record PipelineSpec(BackendSpec count, BackendConfig write, Duration lag) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  /** Default {@code lag}: an agent an hour behind still has its lines counted in their windows. */
  public static final Duration DEFAULT_LAG = Duration.ofHours(1);
  /** How long before its own timestamp a line may be filed: clocks a little apart. */
  public static final Duration LEAD = Duration.ofMinutes(5);

  public PipelineSpec {
    Objects.requireNonNull(count, "count");
    Objects.requireNonNull(write, "write");
    Objects.requireNonNull(lag, "lag");
  }

  @Override
  public String kind() {
    return count.kind();
  }

  @Override
  public String name() {
    return count.name();
  }

  @Override
  public Capabilities capabilities() {
    boolean countable = count.seqCountUnavailable() == null;
    return new Capabilities(countable, countable ? Capabilities.LineIds.SEQUENCE : Capabilities.LineIds.NONE,
        false, true);
  }

  @Override
  public String countUnavailable() {
    return count.seqCountUnavailable();
  }

  @Override
  public BackendConfig write() {
    return write;
  }

  @Override
  public BatchSender open(RunContext run) {
    return write.spec().open(run);
  }

  @Override
  public Duration answerTimeout(Duration requestTimeout) {
    return write.spec().answerTimeout(requestTimeout);
  }

  @Override
  public DataStream<BatchOutcome> deliver(DataStream<LineBatch> batches, DeliveryContext context) {
    return write.spec().deliver(batches, context);
  }

  @Override
  public boolean endsAfterCheckpoint() {
    return write.spec().endsAfterCheckpoint();
  }

  @Override
  public List<String> preflight(Preflight before) throws IOException {
    List<String> all = new ArrayList<>(write.spec().preflight(before));
    all.addAll(count.preflight(before));
    return all;
  }

  @Override
  public CountReader openCounter(RunContext run) {
    if (run.times() == null) {
      throw new IllegalStateException("Backend " + name() + " counts by sequence id, which needs the run's timeline.");
    }
    return new SeqWindowReader(count.openSeqCounter(run), run.times(), run.firstIndex(), LEAD, lag,
        System::currentTimeMillis);
  }

  /** None: the agent's records carry its own labels and fields, which the case study's searches do not know. */
  @Override
  public KeyedSearch openSearch(RunContext run) {
    throw new UnsupportedOperationException("Backend " + name() + " counts what an agent delivered from write "
        + write.name() + "; its lines carry the agent's labels and fields, so it has no search by the dataset's.");
  }

  @Override
  public Optional<Footprint> footprint(RunContext run) throws IOException {
    return count.footprint(run);
  }
}
