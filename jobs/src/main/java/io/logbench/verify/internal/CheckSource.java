package io.logbench.verify.internal;

import io.logbench.verify.VerifyEvent;
import io.logbench.verify.VerifyTarget;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** A bounded source that checks one backend's windows and emits its final verdicts; run at parallelism 1. */
public final class CheckSource implements Source<VerifyEvent, CheckSplit, Boolean> {

  private static final long serialVersionUID = 1L;

  private final VerifyTarget target;

  public CheckSource(VerifyTarget target) {
    this.target = target;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SplitEnumerator<CheckSplit, Boolean> createEnumerator(SplitEnumeratorContext<CheckSplit> context) {
    return new CheckEnumerator(context, target.name(), false);
  }

  @Override
  public SplitEnumerator<CheckSplit, Boolean> restoreEnumerator(SplitEnumeratorContext<CheckSplit> context,
      Boolean assigned) {
    return new CheckEnumerator(context, target.name(), assigned);
  }

  @Override
  public SimpleVersionedSerializer<CheckSplit> getSplitSerializer() {
    return new CheckSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<Boolean> getEnumeratorCheckpointSerializer() {
    return new CheckSplit.StateSerializer();
  }

  @Override
  public SourceReader<VerifyEvent, CheckSplit> createReader(SourceReaderContext context) {
    return new CheckReader(target, context);
  }
}
