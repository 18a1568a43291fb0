package io.logbench.canary;

import io.logbench.ledger.LedgerEntry;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/**
 * Wires a backend's canary checks ({@link CanaryCheckOperator}) after its ledger rows: one
 * operator of parallelism 1 per backend, uid {@code canary-<backend>}, so each backend keeps its
 * own failover region and a restore finds its checks' state.
 */
public final class CanaryChecks {

  private CanaryChecks() {}

  /** Attaches the checks of {@code target} to {@code rows}, its backend's ledger upserts. */
  public static void attach(DataStream<LedgerEntry> rows, CanaryTarget target) {
    rows.transform("canary[" + target.name() + "]", Types.VOID, new Factory(target))
        .uid("canary-" + target.name())
        .setParallelism(1)
        .setMaxParallelism(1);
  }

  /** Hands the task's mailbox to the operator, which the round's results come back through. */
  private static final class Factory extends AbstractStreamOperatorFactory<Void>
      implements OneInputStreamOperatorFactory<LedgerEntry, Void> {

    private static final long serialVersionUID = 1L;

    private final CanaryTarget target;

    Factory(CanaryTarget target) {
      this.target = target;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<Void>> T createStreamOperator(StreamOperatorParameters<Void> parameters) {
      return (T) new CanaryCheckOperator(parameters, target);
    }

    @Override
    public Class<? extends StreamOperator<?>> getStreamOperatorClass(ClassLoader classLoader) {
      return CanaryCheckOperator.class;
    }
  }
}
