package io.logbench.sink.kafka.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Writes lines of a {@link LineBatch} as Avro binary {@code io.logbench.schemas.LogRecord} values
 * without building a record object: the fields are written in schema order through one reused
 * direct encoder, each stream's label map is encoded once up front, and the line's UTF-8 bytes are
 * copied as they are (an Avro string is its UTF-8 length and bytes, the same as Avro bytes).
 *
 * <p>Not thread-safe: one per task.
 */
public final class LogRecordEncoder {

  private final byte[][] labelMaps;
  private final Buffer out = new Buffer();
  private final BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);

  public LogRecordEncoder(StreamCatalog streams) {
    labelMaps = new byte[streams.size()][];
    for (int id = 0; id < labelMaps.length; id++) {
      labelMaps[id] = encodeMap(streams.labels(id));
    }
  }

  /** The Avro binary value of line {@code k} of {@code batch}. */
  public byte[] encode(LineBatch batch, int k) {
    out.reset();
    try {
      encoder.writeLong(batch.seq(k));
      encoder.writeLong(batch.timestampMillis(k));
      encoder.writeLong(batch.timestampNanos(k));
      out.write(labelMaps[batch.stream(k)]);
      encoder.writeBytes(batch.rawData(), batch.start(k), batch.length(k));
    } catch (IOException e) {
      throw new UncheckedIOException("Writing to a byte array failed, which it cannot.", e);
    }
    return out.toByteArray();
  }

  private static byte[] encodeMap(Map<String, String> labels) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder e = EncoderFactory.get().directBinaryEncoder(bytes, null);
    try {
      e.writeMapStart();
      e.setItemCount(labels.size());
      for (Map.Entry<String, String> entry : labels.entrySet()) {
        e.startItem();
        e.writeString(entry.getKey());
        e.writeString(entry.getValue());
      }
      e.writeMapEnd();
      e.flush();
    } catch (IOException ex) {
      throw new UncheckedIOException("Writing to a byte array failed, which it cannot.", ex);
    }
    return bytes.toByteArray();
  }

  /** A byte array stream whose buffer is reused across records. */
  private static final class Buffer extends ByteArrayOutputStream {
    Buffer() {
      super(256);
    }

    @Override
    public void write(byte[] b) {
      write(b, 0, b.length);
    }
  }
}
