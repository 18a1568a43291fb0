package io.logbench.sink.internal;

import io.logbench.dataset.JsonEscaping;
import io.logbench.dataset.LineBatch;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable, reusable byte buffer for request bodies made of pre-serialized pieces (JSON, or raw
 * protobuf for Loki) and for file bytes on their way to a channel, with JSON string escaping that works on the raw UTF-8 bytes of a line (no
 * String, no per-line Jackson).
 */
public final class JsonBytes {

  private byte[] buf;
  private int size;

  public JsonBytes(int capacity) {
    this.buf = new byte[Math.max(64, capacity)];
  }

  /** Forgets the bytes written so far and keeps the capacity, to reuse the buffer for the next body. */
  public void clear() {
    size = 0;
  }

  public int size() {
    return size;
  }

  /** The backing array, valid from 0 to {@link #size()} (no copy, e.g. for compression). */
  public byte[] array() {
    return buf;
  }

  /** A copy of the bytes written so far. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  /**
   * Makes room for {@code more} bytes after the current size and returns the backing array, for
   * code that writes into it directly (e.g. a compressor) and then calls {@link #size(int)}.
   */
  public byte[] reserve(int more) {
    ensure(more);
    return buf;
  }

  /** Sets the size after bytes were written into {@link #reserve}'s array. */
  public void size(int newSize) {
    if (newSize < 0 || newSize > buf.length) {
      throw new IllegalArgumentException("A size of " + newSize + " is outside the buffer's " + buf.length + " bytes.");
    }
    size = newSize;
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  public JsonBytes append(byte[] piece) {
    return append(piece, 0, piece.length);
  }

  public JsonBytes append(byte[] src, int off, int len) {
    ensure(len);
    System.arraycopy(src, off, buf, size, len);
    size += len;
    return this;
  }

  /** Appends an ASCII string (field names, punctuation) without encoding it to a byte[] first. */
  public JsonBytes appendAscii(String s) {
    ensure(s.length());
    for (int i = 0; i < s.length(); i++) {
      buf[size++] = (byte) s.charAt(i);
    }
    return this;
  }

  public JsonBytes append(byte b) {
    ensure(1);
    buf[size++] = b;
    return this;
  }

  /** A billion: the most digits an {@code int} chunk of a long's decimal digits holds is nine. */
  private static final long E9 = 1_000_000_000L;

  /** Appends the decimal digits of {@code v}. */
  public JsonBytes appendLong(long v) {
    if (v == Long.MIN_VALUE) {
      return append(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
    }
    if (v < 0) {
      append((byte) '-');
      v = -v;
    }
    if (v < E9) {
      int digits = 1;
      for (int t = (int) v; t >= 10; t = div10(t)) {
        digits++;
      }
      return appendPadded((int) v, digits);
    }
    // nine digits at a time: one 64-bit division per nine digits instead of two per digit
    long high = v / E9;
    appendLong(high);
    return appendPadded((int) (v - high * E9), 9);
  }

  /** Appends {@code v} as exactly {@code width} digits, zero padded (v must fit). */
  public JsonBytes appendPadded(long v, int width) {
    if (v >= 0 && v <= Integer.MAX_VALUE) {
      return appendPadded((int) v, width);
    }
    ensure(width);
    for (int i = size + width - 1; i >= size; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    size += width;
    return this;
  }

  /** Appends {@code v >= 0} as exactly {@code width} digits, zero padded (v must fit). */
  public JsonBytes appendPadded(int v, int width) {
    ensure(width);
    byte[] b = buf;
    for (int i = size + width - 1; i >= size; i--) {
      int q = div10(v);
      b[i] = (byte) ('0' + (v - q * 10));
      v = q;
    }
    size += width;
    return this;
  }

  /**
   * {@code v / 10} for {@code v >= 0}, by a multiplication: a line's timestamp is nine to nineteen
   * digits, and C1, the JIT of a run, makes every 64-bit division a call into the VM (two a digit
   * were 2.8% of a 100k-lines/s source's samples; docs/benchmarks.md, thirteenth round).
   */
  static int div10(int v) {
    return (int) ((v * 0xCCCCCCCDL) >>> 35);
  }

  /**
   * Appends {@code len} UTF-8 bytes of {@code src} escaped for the inside of a JSON string:
   * quote, backslash and control characters are escaped; other bytes (including multi-byte UTF-8
   * sequences) are copied as they are.
   */
  public JsonBytes appendEscaped(byte[] src, int off, int len) {
    // room for the worst case once, then no capacity check per byte
    ensure(JsonEscaping.MAX_EXPANSION * len);
    size = JsonEscaping.escape(src, off, len, buf, size);
    return this;
  }

  /**
   * Appends line {@code k} of {@code batch} as the inside of a JSON string: copied when the batch
   * holds its lines escaped already ({@link LineBatch#jsonEscaped()}), escaped byte by byte
   * otherwise.
   */
  public JsonBytes appendLine(LineBatch batch, int k) {
    int from = batch.start(k);
    int len = batch.end(k) - from;
    return batch.jsonEscaped() ? append(batch.data(), from, len) : appendEscaped(batch.data(), from, len);
  }

  /** A Java string as a quoted JSON string, in UTF-8 bytes (for pre-serializing pieces once). */
  public static byte[] quoted(String s) {
    byte[] raw = s.getBytes(StandardCharsets.UTF_8);
    JsonBytes out = new JsonBytes(raw.length + 8);
    out.append((byte) '"').appendEscaped(raw, 0, raw.length).append((byte) '"');
    return out.toByteArray();
  }

  public static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
