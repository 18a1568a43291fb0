package io.logbench.sink.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable, reusable byte buffer for request bodies made of pre-serialized pieces (JSON, or raw
 * protobuf for Loki) and for file bytes on their way to a channel, with JSON string escaping that works on the raw UTF-8 bytes of a line (no
 * String, no per-line Jackson).
 */
public final class JsonBytes {

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** Per byte value: 1 for the bytes a JSON string escapes (quote, backslash, controls). */
  private static final byte[] NEEDS_ESCAPE = new byte[256];

  static {
    for (int b = 0; b < 0x20; b++) {
      NEEDS_ESCAPE[b] = 1;
    }
    NEEDS_ESCAPE['"'] = 1;
    NEEDS_ESCAPE['\\'] = 1;
  }

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

  /** Appends the decimal digits of {@code v}. */
  public JsonBytes appendLong(long v) {
    if (v == Long.MIN_VALUE) {
      return append(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
    }
    if (v < 0) {
      append((byte) '-');
      v = -v;
    }
    int digits = 1;
    for (long t = v; t >= 10; t /= 10) {
      digits++;
    }
    ensure(digits);
    for (int i = size + digits - 1; i >= size; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    size += digits;
    return this;
  }

  /** Appends {@code v} as exactly {@code width} digits, zero padded (v must fit). */
  public JsonBytes appendPadded(long v, int width) {
    ensure(width);
    for (int i = size + width - 1; i >= size; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    size += width;
    return this;
  }

  /**
   * Appends {@code len} UTF-8 bytes of {@code src} escaped for the inside of a JSON string:
   * quote, backslash and control characters are escaped; other bytes (including multi-byte UTF-8
   * sequences) are copied as they are.
   */
  public JsonBytes appendEscaped(byte[] src, int off, int len) {
    // room for the worst case (every byte escaped as six) once, then a loop on locals: no capacity
    // check or field update per byte
    ensure(6 * len);
    byte[] dst = buf;
    int p = size;
    int end = off + len;
    for (int i = off; i < end; i++) {
      byte b = src[i];
      if (NEEDS_ESCAPE[b & 0xFF] == 0) {
        dst[p++] = b;
      } else if (b == '"' || b == '\\') {
        dst[p++] = '\\';
        dst[p++] = b;
      } else {
        dst[p++] = '\\';
        switch (b) {
          case '\n' -> dst[p++] = 'n';
          case '\r' -> dst[p++] = 'r';
          case '\t' -> dst[p++] = 't';
          case '\b' -> dst[p++] = 'b';
          case '\f' -> dst[p++] = 'f';
          default -> {
            dst[p++] = 'u';
            dst[p++] = '0';
            dst[p++] = '0';
            dst[p++] = HEX[b >> 4];
            dst[p++] = HEX[b & 0xF];
          }
        }
      }
    }
    size = p;
    return this;
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
