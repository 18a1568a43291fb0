package io.logbench.source;

import io.logbench.dataset.LineBatch;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;

/** A reader output that keeps every batch emitted. */
class CollectingOutput implements ReaderOutput<LineBatch> {

  final List<LineBatch> batches = new ArrayList<>();

  List<Long> ids() {
    return batches.stream().map(LineBatch::batchId).toList();
  }

  @Override
  public void collect(LineBatch record) {
    batches.add(record);
  }

  @Override
  public void collect(LineBatch record, long timestamp) {
    batches.add(record);
  }

  @Override
  public void emitWatermark(Watermark watermark) {}

  @Override
  public void markIdle() {}

  @Override
  public void markActive() {}

  @Override
  public SourceOutput<LineBatch> createOutputForSplit(String splitId) {
    return this;
  }

  @Override
  public void releaseOutputForSplit(String splitId) {}
}
