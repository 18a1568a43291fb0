package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RequestBytesTest {

  private static final byte[] START = "POST /x HTTP/1.1\r\nhost: h\r\n".getBytes(StandardCharsets.US_ASCII);

  /** A body of {@code n} bytes of a pattern that counts its releases. */
  private static final class Body implements HttpTransport.RequestBody {
    final byte[] bytes;
    final int length;
    final AtomicInteger released = new AtomicInteger();

    Body(int n) {
      bytes = new byte[n + 3]; // longer than its length: only length bytes are written
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) ('a' + i % 26);
      }
      length = n;
    }

    @Override
    public byte[] array() {
      return bytes;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public void release() {
      released.incrementAndGet();
    }

    String text() {
      return new String(bytes, 0, length, StandardCharsets.US_ASCII);
    }
  }

  private static String expected(String type, Body body) {
    return new String(START, StandardCharsets.US_ASCII) + "content-type: " + type + "\r\ncontent-length: "
        + body.length + "\r\n\r\n" + body.text();
  }

  private static String text(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return new String(out, StandardCharsets.US_ASCII);
  }

  /**
   * Both forms hold the same bytes, the head and exactly the body's length, for lengths around
   * each number of digits and past the thread buffer's first capacity; the body is released once,
   * and a smaller request after a larger one is not followed by the larger one's bytes.
   */
  @Test
  void theThreadBufferAndAPooledBufferHoldTheRequestAndReleaseItsBodyOnce() {
    int[] lengths = {0, 1, 9, 10, 99, 100, 999, 1000, 65_000, 200_000, 12, 0};
    for (int n : lengths) {
      Body a = new Body(n);
      ByteBuffer mine = RequestBytes.inThreadBuffer(START, "application/json", a);
      assertThat(mine.position()).isZero();
      assertThat(text(mine)).isEqualTo(expected("application/json", a));
      assertThat(mine.limit()).isEqualTo(RequestBytes.size(START, "application/json", n));
      assertThat(a.released).hasValue(1);

      Body b = new Body(n);
      ByteBuf pooled = RequestBytes.pooled(START, "application/x-ndjson", b);
      try {
        assertThat(pooled.toString(StandardCharsets.US_ASCII)).isEqualTo(expected("application/x-ndjson", b));
        assertThat(b.released).hasValue(1);
      } finally {
        pooled.release();
      }
    }
  }

  /** Each thread fills a buffer of its own: another thread's request does not overwrite this one's. */
  @Test
  void eachThreadHasItsOwnBuffer() throws Exception {
    Body mine = new Body(50);
    ByteBuffer here = RequestBytes.inThreadBuffer(START, "text/plain", mine);
    ByteBuffer[] there = new ByteBuffer[1];
    Thread other = new Thread(() -> there[0] = RequestBytes.inThreadBuffer(START, "text/plain", new Body(70)));
    other.start();
    other.join();
    assertThat(there[0]).isNotSameAs(here);
    assertThat(text(here)).isEqualTo(expected("text/plain", mine));
  }

  /** A content type that is not printable ASCII is refused, and the body still released. */
  @Test
  void refusesAContentTypeThatIsNotPrintableAscii() {
    Body body = new Body(5);
    assertThatThrownBy(() -> RequestBytes.inThreadBuffer(START, "text/plain; x=\u00e9", body))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not printable ASCII");
    assertThat(body.released).hasValue(1);
    Body other = new Body(5);
    assertThatThrownBy(() -> RequestBytes.pooled(START, "text/plain\r\nx: y", other))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(other.released).hasValue(1);
  }
}
