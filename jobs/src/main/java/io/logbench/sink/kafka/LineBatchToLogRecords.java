package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schemas.LogRecord;
import java.util.Map;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/** Expands a batch into one {@link LogRecord} per line (for sinks that take one record per element). */
public final class LineBatchToLogRecords implements FlatMapFunction<LineBatch, LogRecord> {

  private static final long serialVersionUID = 1L;

  private final StreamCatalog streams;
  private transient Map<String, String>[] labels;

  public LineBatchToLogRecords(StreamCatalog streams) {
    this.streams = streams;
  }

  @Override
  public void flatMap(LineBatch batch, Collector<LogRecord> out) {
    for (int k = 0; k < batch.count(); k++) {
      out.collect(toRecord(batch, k));
    }
  }

  /** Line {@code k} of {@code batch} as a record. */
  public LogRecord toRecord(LineBatch batch, int k) {
    return LogRecord.newBuilder()
        .setSeq(batch.seq(k))
        .setTimestampMillis(batch.timestampMillis(k))
        .setTimestampNanos(batch.timestampNanos(k))
        .setLabels(labels(batch.stream(k)))
        .setLine(batch.lineAsString(k))
        .build();
  }

  @SuppressWarnings("unchecked")
  private Map<String, String> labels(int stream) {
    if (labels == null) {
      labels = new Map[streams.size()];
      for (int id = 0; id < labels.length; id++) {
        labels[id] = streams.labels(id);
      }
    }
    return labels[stream];
  }
}
