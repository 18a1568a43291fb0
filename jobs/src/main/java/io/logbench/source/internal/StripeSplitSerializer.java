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

/**
 * Versioned binary form of a {@link StripeSplit}: version 2 is version 1's fields (stripe, stripes,
 * batch, start) then the checkpoint the state was taken in; version 1 is still read (no
 * checkpoint), and the enumerator's state keeps its splits in version 1's form ({@link #write}).
 */
public final class StripeSplitSerializer implements SimpleVersionedSerializer<StripeSplit> {

  public static final StripeSplitSerializer INSTANCE = new StripeSplitSerializer();

  static final int VERSION = 2;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(StripeSplit split) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(24);
    DataOutputStream out = new DataOutputStream(bytes);
    write(split, out);
    out.writeLong(split.checkpointId());
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public StripeSplit deserialize(int version, byte[] serialized) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
    if (version == 1) {
      return read(in);
    }
    if (version != VERSION) {
      throw new IOException(
          "Cannot read a stripe split of serializer version "
              + version
              + "; this build reads version "
              + VERSION
              + ".");
    }
    StripeSplit split = read(in);
    return new StripeSplit(split.stripe(), split.stripes(), split.nextBatch(), split.runStartMillis(), in.readLong());
  }

  /** Version 1's fields: stripe, stripes, batch, start (no checkpoint). */
  static void write(StripeSplit split, DataOutput out) throws IOException {
    out.writeInt(split.stripe());
    out.writeInt(split.stripes());
    out.writeLong(split.nextBatch());
    out.writeLong(split.runStartMillis());
  }

  /** Reads version 1's fields; the split has no checkpoint. */
  static StripeSplit read(DataInput in) throws IOException {
    int stripe = in.readInt();
    int stripes = in.readInt();
    long nextBatch = in.readLong();
    long runStartMillis = in.readLong();
    return new StripeSplit(stripe, stripes, nextBatch, runStartMillis);
  }
}
