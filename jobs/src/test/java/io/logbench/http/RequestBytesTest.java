package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestBytesTest {

  private static final byte[] START = "POST /x HTTP/1.1\r\nhost: h\r\n".getBytes(StandardCharsets.US_ASCII);

  /** A body of {@code n} bytes of a pattern (its array 3 bytes longer: only its length is written). */
  private static CountedBody body(int n) {
    byte[] bytes = new byte[n + 3];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) ('a' + i % 26);
    }
    return new CountedBody(bytes, n);
  }

  private static String text(CountedBody body) {
    return new String(body.bytes, 0, body.length, StandardCharsets.US_ASCII);
  }

  private static String expected(String type, CountedBody body) {
    return new String(START, StandardCharsets.US_ASCII) + "content-type: " + type + "\r\ncontent-length: "
        + body.length + "\r\n\r\n" + text(body);
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
      CountedBody a = body(n);
      ByteBuffer mine = RequestBytes.inThreadBuffer(START, "application/json", a);
      assertThat(mine.position()).isZero();
      assertThat(text(mine)).isEqualTo(expected("application/json", a));
      assertThat(mine.limit()).isEqualTo(RequestBytes.size(START, "application/json", n));
      assertThat(a.released).hasValue(1);

      CountedBody b = body(n);
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
    CountedBody mine = body(50);
    ByteBuffer here = RequestBytes.inThreadBuffer(START, "text/plain", mine);
    ByteBuffer[] there = new ByteBuffer[1];
    Thread other = new Thread(() -> there[0] = RequestBytes.inThreadBuffer(START, "text/plain", body(70)));
    other.start();
    other.join();
    assertThat(there[0]).isNotSameAs(here);
    assertThat(text(here)).isEqualTo(expected("text/plain", mine));
  }

  /** A content type that is not printable ASCII (it would not be one header line) is refused, and the body still released. */
  @Test
  void refusesAContentTypeThatIsNotPrintableAscii() {
    assertThatThrownBy(() -> RequestBytes.size(START, "text/plain; x=\u00e9", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not printable ASCII");
    CountedBody body = body(5);
    assertThatThrownBy(() -> RequestBytes.inThreadBuffer(START, "text/plain; x=\u00e9", body))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not printable ASCII");
    assertThat(body.released).hasValue(1);
    CountedBody other = body(5);
    assertThatThrownBy(() -> RequestBytes.pooled(START, "text/plain\r\nx: y", other))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(other.released).hasValue(1);
  }
}
