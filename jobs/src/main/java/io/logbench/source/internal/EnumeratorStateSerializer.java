package io.logbench.source.internal;

import io.logbench.source.internal.StripeSplit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Versioned binary form of an {@link EnumeratorState} (version 1: run start, stripes, then the
 * unassigned splits in the split serializer's version-1 form).
 */
public final class EnumeratorStateSerializer implements SimpleVersionedSerializer<EnumeratorState> {

  public static final EnumeratorStateSerializer INSTANCE = new EnumeratorStateSerializer();

  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(EnumeratorState state) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + 24 * state.unassigned().size());
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeLong(state.runStartMillis());
    out.writeInt(state.stripes());
    out.writeInt(state.unassigned().size());
    for (StripeSplit split : state.unassigned()) {
      StripeSplitSerializer.write(split, out);
    }
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public EnumeratorState deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException(
          "Cannot read a dataset source enumerator state of serializer version "
              + version
              + "; this build reads version "
              + VERSION
              + ".");
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
    long runStartMillis = in.readLong();
    int stripes = in.readInt();
    int n = in.readInt();
    List<StripeSplit> unassigned = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      unassigned.add(StripeSplitSerializer.read(in));
    }
    return new EnumeratorState(runStartMillis, stripes, unassigned);
  }
}
