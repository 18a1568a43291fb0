package io.logbench.source;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A configuration-free serializer of a type nothing changes once it is handed to Flink (line
 * batches, outcomes): its copy between chained operators is the record itself, so Flink's copy of
 * every record between chained operators costs nothing; a subclass writes and reads the bytes.
 */
public abstract class SharedCopySerializer<T> extends TypeSerializerSingleton<T> {

  private static final long serialVersionUID = 1L;

  @Override
  public boolean isImmutableType() {
    return false;
  }

  /** The record itself: nothing changes it once it is made. */
  @Override
  public T copy(T from) {
    return from;
  }

  @Override
  public T copy(T from, T reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public T deserialize(T reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }
}
