package io.logbench.source.internal;

import io.logbench.source.internal.StripeSplit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Versioned binary form of a {@link StripeSplit} (version 1: stripe, stripes, batch, start). */
public final class StripeSplitSerializer implements SimpleVersionedSerializer<StripeSplit> {

  public static final StripeSplitSerializer INSTANCE = new StripeSplitSerializer();

  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(StripeSplit split) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(24);
    DataOutputStream out = new DataOutputStream(bytes);
    write(split, out);
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public StripeSplit deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException(
          "Cannot read a stripe split of serializer version "
              + version
              + "; this build reads version "
              + VERSION
              + ".");
    }
    return read(new DataInputStream(new ByteArrayInputStream(serialized)));
  }

  static void write(StripeSplit split, DataOutput out) throws IOException {
    out.writeInt(split.stripe());
    out.writeInt(split.stripes());
    out.writeLong(split.nextBatch());
    out.writeLong(split.runStartMillis());
  }

  static StripeSplit read(DataInput in) throws IOException {
    int stripe = in.readInt();
    int stripes = in.readInt();
    long nextBatch = in.readLong();
    long runStartMillis = in.readLong();
    return new StripeSplit(stripe, stripes, nextBatch, runStartMillis);
  }
}
