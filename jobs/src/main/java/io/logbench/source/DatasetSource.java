package io.logbench.source;

import io.logbench.dataset.LineBatch;
import io.logbench.replay.ReplayFiles;
import io.logbench.source.internal.DatasetSourceReader;
import io.logbench.source.internal.DatasetSplitEnumerator;
import io.logbench.source.internal.EnumeratorState;
import io.logbench.source.internal.EnumeratorStateSerializer;
import io.logbench.source.internal.LeaseSettings;
import io.logbench.source.internal.RunPlan;
import io.logbench.source.internal.StripeSplit;
import io.logbench.source.internal.StripeSplitSerializer;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded Flink source that emits a run of dataset lines as {@link LineBatch}es of fixed size,
 * each when the schedule says it is due, with timestamps from the timeline.
 *
 * <p>Batch {@code b} holds run lines {@code [b*B, min((b+1)*B, lines))} and has batch id {@code
 * b}; a line's sequence id is its dataset index. Batches are striped over the readers (stripe
 * {@code s} of {@code S} owns batches {@code s, s+S, ...}), so every reader moves through time
 * together, and the output is the same at every parallelism. Build one with {@link #builder()}.
 *
 * <p>With {@link DatasetSourceBuilder#leases} each stripe keeps a lease in the run directory (the
 * highest batch it may have emitted, written before it emits beyond it), and a reader that finds
 * one when it gets its stripe (a restore) records the batches it will emit again in {@value
 * ReplayFiles#RESTORES}.
 *
 * <p>Built with {@code endAfterCheckpoint}, a reader that has emitted its last batch ends its
 * input only once a checkpoint taken after that has completed.
 *
 * <p>Built with {@code jsonEscapedLines}, for a backend that writes each line inside a JSON
 * string, the batches hold their lines escaped for it ({@link LineBatch#jsonEscaped()}) when the
 * dataset makes them so ({@link io.logbench.dataset.Dataset#makesJsonEscapedLines}); raw
 * otherwise.
 *
 * <p>Metrics on each reader: gauge {@code scheduleLagMillis}, counters {@code linesEmitted} and
 * {@code batchesEmitted}; for a source that feeds a named backend, also in group {@code
 * backend=<name>}: gauges {@code scheduleLagMillis} and {@code targetLinesPerSecond} (the
 * schedule's target rate for the whole run now, the same on every reader).
 */
public final class DatasetSource
    implements Source<LineBatch, StripeSplit, EnumeratorState>, ResultTypeQueryable<LineBatch> {

  private static final long serialVersionUID = 1L;

  private final RunPlan plan;
  private final int stripes;
  private final long fixedRunStartMillis;
  private final String backend;
  private final LeaseSettings leases;
  private final boolean endAfterCheckpoint;
  private final boolean jsonEscapedLines;

  DatasetSource(RunPlan plan, int stripes, long fixedRunStartMillis, String backend, LeaseSettings leases,
      boolean endAfterCheckpoint, boolean jsonEscapedLines) {
    this.plan = plan;
    this.stripes = stripes;
    this.fixedRunStartMillis = fixedRunStartMillis;
    this.backend = backend;
    this.leases = leases;
    this.endAfterCheckpoint = endAfterCheckpoint;
    this.jsonEscapedLines = jsonEscapedLines;
  }

  public static DatasetSourceBuilder builder() {
    return new DatasetSourceBuilder();
  }

  /** Lines in the run. */
  public long lines() {
    return plan.lines();
  }

  /** Batches in the run (the last may be short). */
  public long batches() {
    return plan.batches();
  }

  /** Lines per batch. */
  public int batchSize() {
    return plan.batchSize();
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<LineBatch, StripeSplit> createReader(SourceReaderContext context) {
    return new DatasetSourceReader(plan, context, backend, leases, endAfterCheckpoint, jsonEscapedLines);
  }

  @Override
  public SplitEnumerator<StripeSplit, EnumeratorState> createEnumerator(
      SplitEnumeratorContext<StripeSplit> context) {
    int count = stripes > 0 ? stripes : Math.max(1, context.currentParallelism());
    EnumeratorState fresh = new EnumeratorState(EnumeratorState.NOT_STARTED, count, List.of());
    return new DatasetSplitEnumerator(context, fresh, fixedRunStartMillis);
  }

  @Override
  public SplitEnumerator<StripeSplit, EnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<StripeSplit> context, EnumeratorState checkpoint) {
    return new DatasetSplitEnumerator(context, checkpoint, fixedRunStartMillis);
  }

  @Override
  public SimpleVersionedSerializer<StripeSplit> getSplitSerializer() {
    return StripeSplitSerializer.INSTANCE;
  }

  @Override
  public SimpleVersionedSerializer<EnumeratorState> getEnumeratorCheckpointSerializer() {
    return EnumeratorStateSerializer.INSTANCE;
  }

  @Override
  public TypeInformation<LineBatch> getProducedType() {
    return LineBatchTypeInfo.INSTANCE;
  }
}
