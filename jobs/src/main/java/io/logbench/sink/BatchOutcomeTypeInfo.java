package io.logbench.sink;

import java.io.IOException;
import io.logbench.source.OneClassTypeInfo;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Type information for {@link BatchOutcome}: Flink's own (a POJO of a record) for everything but
 * the copy between chained operators, which hands on the outcome itself. An outcome is never
 * changed once made (no operator writes into its lists), so sharing it is safe; Flink's copy of a
 * record's fields by reflection, with its lists through Kryo, was about a twentieth of a source
 * task's CPU at 200 batches a second (docs/benchmarks.md, tenth round).
 */
public final class BatchOutcomeTypeInfo extends OneClassTypeInfo<BatchOutcome> {

  private static final long serialVersionUID = 1L;

  public static final BatchOutcomeTypeInfo INSTANCE = new BatchOutcomeTypeInfo();

  private final TypeInformation<BatchOutcome> flinks = BatchOutcomeTypeInfo.INSTANCE;

  private BatchOutcomeTypeInfo() {
    super(BatchOutcome.class);
  }

  /** Flink's own type information of the record. */
  private static TypeInformation<BatchOutcome> flinks() {
    return TypeInformation.of(BatchOutcome.class);
  }

  @Override
  public int getArity() {
    return flinks().getArity();
  }

  @Override
  public int getTotalFields() {
    return flinks().getTotalFields();
  }

  @Override
  public TypeSerializer<BatchOutcome> createSerializer(SerializerConfig config) {
    return new SharedCopySerializer(flinks().createSerializer(config));
  }

  /** Flink's serializer of outcomes, except that a copy is the outcome itself. */
  public static final class SharedCopySerializer extends TypeSerializer<BatchOutcome> {

    private static final long serialVersionUID = 1L;

    private final TypeSerializer<BatchOutcome> inner;

    SharedCopySerializer(TypeSerializer<BatchOutcome> inner) {
      this.inner = inner;
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public TypeSerializer<BatchOutcome> duplicate() {
      TypeSerializer<BatchOutcome> d = inner.duplicate();
      return d == inner ? this : new SharedCopySerializer(d);
    }

    @Override
    public BatchOutcome createInstance() {
      return inner.createInstance();
    }

    /** The outcome itself: nothing changes an outcome once it is made. */
    @Override
    public BatchOutcome copy(BatchOutcome from) {
      return from;
    }

    @Override
    public BatchOutcome copy(BatchOutcome from, BatchOutcome reuse) {
      return from;
    }

    @Override
    public int getLength() {
      return inner.getLength();
    }

    @Override
    public void serialize(BatchOutcome record, DataOutputView target) throws IOException {
      inner.serialize(record, target);
    }

    @Override
    public BatchOutcome deserialize(DataInputView source) throws IOException {
      return inner.deserialize(source);
    }

    @Override
    public BatchOutcome deserialize(BatchOutcome reuse, DataInputView source) throws IOException {
      return inner.deserialize(reuse, source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      inner.copy(source, target);
    }

    @Override
    public boolean equals(Object obj) {
      return obj instanceof SharedCopySerializer s && s.inner.equals(inner);
    }

    @Override
    public int hashCode() {
      return inner.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<BatchOutcome> snapshotConfiguration() {
      return new Snapshot(this);
    }
  }

  /** The snapshot of {@link SharedCopySerializer}: its inner serializer's. */
  public static final class Snapshot extends CompositeTypeSerializerSnapshot<BatchOutcome, SharedCopySerializer> {

    /** For Flink's reading of a snapshot. */
    public Snapshot() {}

    Snapshot(SharedCopySerializer serializer) {
      super(serializer);
    }

    @Override
    protected int getCurrentOuterSnapshotVersion() {
      return 1;
    }

    @Override
    protected TypeSerializer<?>[] getNestedSerializers(SharedCopySerializer outer) {
      return new TypeSerializer<?>[] {outer.inner};
    }

    @SuppressWarnings("unchecked")
    @Override
    protected SharedCopySerializer createOuterSerializerWithNestedSerializers(TypeSerializer<?>[] nested) {
      return new SharedCopySerializer((TypeSerializer<BatchOutcome>) nested[0]);
    }
  }
}
