package io.logbench.delivery.internal;

import io.logbench.sink.BatchOutcome;
import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;

/**
 * The delivery operator's output: each outcome goes on as it came, then tells the {@link
 * BatchRecycler} that its batch left the operator.
 */
public final class RecyclingOutput implements Output<StreamRecord<BatchOutcome>> {

  private final Output<StreamRecord<BatchOutcome>> out;
  private final BatchRecycler recycler;

  public RecyclingOutput(Output<StreamRecord<BatchOutcome>> out, BatchRecycler recycler) {
    this.out = out;
    this.recycler = recycler;
  }

  @Override
  public void collect(StreamRecord<BatchOutcome> record) {
    BatchOutcome outcome = record.getValue();
    out.collect(record);
    recycler.emitted(outcome);
  }

  @Override
  public <X> void collect(OutputTag<X> outputTag, StreamRecord<X> record) {
    out.collect(outputTag, record);
  }

  @Override
  public void emitWatermark(Watermark mark) {
    out.emitWatermark(mark);
  }

  @Override
  public void emitWatermarkStatus(WatermarkStatus watermarkStatus) {
    out.emitWatermarkStatus(watermarkStatus);
  }

  @Override
  public void emitLatencyMarker(LatencyMarker latencyMarker) {
    out.emitLatencyMarker(latencyMarker);
  }

  @Override
  public void emitRecordAttributes(RecordAttributes recordAttributes) {
    out.emitRecordAttributes(recordAttributes);
  }

  @Override
  public void emitWatermark(WatermarkEvent watermark) {
    out.emitWatermark(watermark);
  }

  @Override
  public void close() {
    out.close();
  }
}
