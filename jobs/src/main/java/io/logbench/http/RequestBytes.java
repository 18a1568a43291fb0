package io.logbench.http;

import io.logbench.http.HttpTransport.RequestBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * A request's bytes as the socket takes them: the endpoint's head, the content type and length,
 * then the body, which is released once copied.
 *
 * <p>A thread that writes its requests to the socket itself fills one direct buffer of its own
 * again and again ({@link #inThreadBuffer}): a pooled buffer a request cost the allocator's
 * lookups and locks and new memory to the caches each time (docs/benchmarks.md, twenty-first
 * round), where the same buffer a thread used a moment before is still in them.
 */
final class RequestBytes {

  /** The largest request a thread's own buffer holds; larger ones take pooled buffers. */
  static final int MAX_BYTES = 8 << 20;

  private static final byte[] CONTENT_TYPE = ascii("content-type: ");
  private static final byte[] CONTENT_LENGTH = ascii("\r\ncontent-length: ");
  private static final byte[] END_OF_HEAD = ascii("\r\n\r\n");
  private static final int FIRST_CAPACITY = 64 << 10;

  private static final ThreadLocal<ByteBuffer> BUFFER = new ThreadLocal<>();

  private RequestBytes() {}

  /**
   * The request in this thread's own buffer, from position 0 to its limit, valid until this
   * thread's next call; for requests of at most {@link #MAX_BYTES}.
   */
  static ByteBuffer inThreadBuffer(byte[] start, String contentType, RequestBody body) {
    int size = sizeOrRelease(start, contentType, body);
    ByteBuffer buffer = BUFFER.get();
    if (buffer == null || buffer.capacity() < size) {
      buffer = ByteBuffer.allocateDirect(Math.min(MAX_BYTES, Math.max(size, buffer == null ? FIRST_CAPACITY
          : 2 * buffer.capacity())));
      BUFFER.set(buffer);
    }
    buffer.clear();
    put(buffer, start, contentType, body);
    return buffer.flip();
  }

  /** The request in a new pooled direct buffer, which its taker releases. */
  static ByteBuf pooled(byte[] start, String contentType, RequestBody body) {
    int size = sizeOrRelease(start, contentType, body);
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(size);
    put(buf.nioBuffer(0, size), start, contentType, body);
    return buf.writerIndex(size);
  }

  /**
   * The request's length in bytes.
   *
   * @throws IllegalArgumentException if the content type is not printable ASCII (it would not be
   *     one header line)
   */
  static int size(byte[] start, String contentType, int bodyLength) {
    for (int i = 0; i < contentType.length(); i++) {
      char c = contentType.charAt(i);
      if (c > 0x7e || c < 0x20) {
        throw new IllegalArgumentException("The content type '" + contentType + "' is not printable ASCII.");
      }
    }
    return start.length + CONTENT_TYPE.length + contentType.length() + CONTENT_LENGTH.length + digits(bodyLength)
        + END_OF_HEAD.length + bodyLength;
  }

  private static int sizeOrRelease(byte[] start, String contentType, RequestBody body) {
    try {
      return size(start, contentType, body.length());
    } catch (IllegalArgumentException e) {
      body.release();
      throw e;
    }
  }

  private static void put(ByteBuffer out, byte[] start, String contentType, RequestBody body) {
    try {
      out.put(start).put(CONTENT_TYPE);
      for (int i = 0; i < contentType.length(); i++) {
        out.put((byte) contentType.charAt(i)); // printable ASCII: size() checked it
      }
      out.put(CONTENT_LENGTH);
      putDigits(out, body.length());
      out.put(END_OF_HEAD).put(body.array(), 0, body.length());
    } finally {
      body.release();
    }
  }

  private static int digits(int n) {
    int d = 1;
    while (n >= 10) {
      n /= 10;
      d++;
    }
    return d;
  }

  private static void putDigits(ByteBuffer out, int n) {
    int end = out.position() + digits(n);
    for (int at = end - 1; at >= out.position(); at--) {
      out.put(at, (byte) ('0' + n % 10));
      n /= 10;
    }
    out.position(end);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }
}
