package io.logbench.sink.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable byte buffer that request bodies are written into directly from line bytes, with JSON
 * string escaping of raw UTF-8 bytes, so lines are never decoded into Strings on the send path.
 */
public final class GrowableBytes {

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private byte[] buf;
  private int size;

  public GrowableBytes(int capacity) {
    this.buf = new byte[Math.max(64, capacity)];
  }

  public void clear() {
    size = 0;
  }

  public int size() {
    return size;
  }

  /** The backing array, valid from 0 to {@link #size()}. */
  public byte[] array() {
    return buf;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  public void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  public GrowableBytes put(byte b) {
    ensure(1);
    buf[size++] = b;
    return this;
  }

  public GrowableBytes put(byte[] src) {
    return put(src, 0, src.length);
  }

  public GrowableBytes put(byte[] src, int off, int len) {
    ensure(len);
    System.arraycopy(src, off, buf, size, len);
    size += len;
    return this;
  }

  /** Appends an ASCII string (numbers, field names, punctuation). */
  public GrowableBytes ascii(String s) {
    ensure(s.length());
    for (int i = 0; i < s.length(); i++) {
      buf[size++] = (byte) s.charAt(i);
    }
    return this;
  }

  public GrowableBytes decimal(long v) {
    return ascii(Long.toString(v));
  }

  /** Appends {@code digits} decimal digits of {@code v}, zero-padded (v is non-negative). */
  public GrowableBytes padded(long v, int digits) {
    ensure(digits);
    for (int i = digits - 1; i >= 0; i--) {
      buf[size + i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    size += digits;
    return this;
  }

  /**
   * Appends UTF-8 bytes as the inside of a JSON string: quote, backslash and control characters
   * escaped, every other byte (including multi-byte UTF-8 sequences) copied as is.
   */
  public GrowableBytes jsonEscaped(byte[] src, int off, int len) {
    ensure(len + 16);
    int end = off + len;
    for (int i = off; i < end; i++) {
      byte b = src[i];
      if (b == '"' || b == '\\') {
        ensure(end - i + 2);
        buf[size++] = '\\';
        buf[size++] = b;
      } else if (b >= 0 && b < 0x20) {
        ensure(end - i + 6);
        buf[size++] = '\\';
        switch (b) {
          case '\n' -> buf[size++] = 'n';
          case '\r' -> buf[size++] = 'r';
          case '\t' -> buf[size++] = 't';
          default -> {
            buf[size++] = 'u';
            buf[size++] = '0';
            buf[size++] = '0';
            buf[size++] = HEX[(b >> 4) & 0xf];
            buf[size++] = HEX[b & 0xf];
          }
        }
      } else {
        ensure(end - i);
        buf[size++] = b;
      }
    }
    return this;
  }

  /** A JSON string literal (with quotes) of {@code s}. */
  public static byte[] jsonString(String s) {
    byte[] raw = s.getBytes(StandardCharsets.UTF_8);
    GrowableBytes out = new GrowableBytes(raw.length + 8);
    out.put((byte) '"').jsonEscaped(raw, 0, raw.length).put((byte) '"');
    return out.toByteArray();
  }
}
