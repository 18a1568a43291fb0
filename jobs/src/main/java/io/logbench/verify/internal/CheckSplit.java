package io.logbench.verify.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** The one split of a backend's check source: the backend's name. */
public record CheckSplit(String backend) implements SourceSplit {

  @Override
  public String splitId() {
    return backend;
  }

  /** Serializer of {@link CheckSplit}. */
  public static final class Serializer implements SimpleVersionedSerializer<CheckSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(CheckSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(split.backend());
      }
      return bytes.toByteArray();
    }

    @Override
    public CheckSplit deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return new CheckSplit(in.readUTF());
      }
    }
  }

  /** Serializer of the enumerator's state: whether the split was assigned. */
  public static final class StateSerializer implements SimpleVersionedSerializer<Boolean> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Boolean assigned) {
      return new byte[] {(byte) (assigned ? 1 : 0)};
    }

    @Override
    public Boolean deserialize(int version, byte[] serialized) {
      return serialized.length > 0 && serialized[0] == 1;
    }
  }
}
