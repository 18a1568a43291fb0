package io.logbench.dataset;

import java.nio.charset.StandardCharsets;

/**
 * JSON string escaping on the raw UTF-8 bytes of a line, and its inverse: quote and backslash get
 * a backslash, the control bytes below 0x20 become {@code \n}, {@code \r}, {@code \t}, {@code
 * \b}, {@code \f} or a backslash and {@code u00XX}; every other byte (multi-byte UTF-8 included)
 * is copied. What a JSON encoder writes inside a string, and what a dataset writes when it makes
 * lines already escaped ({@link LineBatch#jsonEscaped()}).
 */
public final class JsonEscaping {

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

  /** The most bytes one byte escapes to (a backslash and {@code u00XX}). */
  public static final int MAX_EXPANSION = 6;

  private JsonEscaping() {}

  /**
   * Writes {@code len} bytes of {@code src} escaped into {@code dst} at {@code at}, which must have
   * room for {@link #MAX_EXPANSION} times {@code len}; returns the offset after them.
   */
  public static int escape(byte[] src, int off, int len, byte[] dst, int at) {
    // a loop on locals, no capacity check per byte: C1, the JIT of a run, checks every array index
    int p = at;
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
    return p;
  }

  /** {@code raw} escaped, in a new array of exactly its length (for making pieces once). */
  public static byte[] escape(byte[] raw) {
    byte[] out = new byte[MAX_EXPANSION * raw.length];
    return java.util.Arrays.copyOf(out, escape(raw, 0, raw.length, out, 0));
  }

  /**
   * The raw bytes of {@code len} escaped bytes of {@code src}, as {@link #escape} wrote them.
   *
   * @throws IllegalArgumentException for bytes {@link #escape} does not write (a lone backslash, an
   *     unknown escape, a raw quote or control byte)
   */
  public static byte[] unescape(byte[] src, int off, int len) {
    byte[] out = new byte[len];
    int p = 0;
    int end = off + len;
    for (int i = off; i < end; i++) {
      byte b = src[i];
      if (b != '\\') {
        if (NEEDS_ESCAPE[b & 0xFF] != 0) {
          throw new IllegalArgumentException("Byte " + (b & 0xFF) + " at " + (i - off) + " is not escaped.");
        }
        out[p++] = b;
        continue;
      }
      if (++i == end) {
        throw new IllegalArgumentException("A backslash ends the escaped bytes.");
      }
      switch (src[i]) {
        case '"' -> out[p++] = '"';
        case '\\' -> out[p++] = '\\';
        case 'n' -> out[p++] = '\n';
        case 'r' -> out[p++] = '\r';
        case 't' -> out[p++] = '\t';
        case 'b' -> out[p++] = '\b';
        case 'f' -> out[p++] = '\f';
        case 'u' -> {
          if (end - i < 5 || src[i + 1] != '0' || src[i + 2] != '0') {
            throw new IllegalArgumentException("An escape \\u at " + (i - 1 - off) + " is not \\u00XX.");
          }
          out[p++] = (byte) (hex(src[i + 3]) << 4 | hex(src[i + 4]));
          i += 4;
        }
        default -> throw new IllegalArgumentException(
            "The escape \\" + (char) src[i] + " at " + (i - 1 - off) + " is not one JSON escaping writes.");
      }
    }
    return java.util.Arrays.copyOf(out, p);
  }

  private static int hex(byte c) {
    int v = Character.digit(c, 16);
    if (v < 0) {
      throw new IllegalArgumentException("'" + (char) c + "' is not a hex digit.");
    }
    return v;
  }
}
