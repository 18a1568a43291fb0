package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The transport's answer reader: every answer whole whatever parts its bytes come in (each test
 * feeds every split of the bytes in two, and one byte at a time), framed by length, chunks or the
 * close, interim answers skipped, keep-alive as the version and {@code Connection} say, and bytes
 * that are not an answer refused.
 */
class AnswerDecoderTest {

  private record Read(int status, String body, boolean keepAlive) {
    @Override
    public String toString() {
      return status + " '" + body + "' " + (keepAlive ? "keep-alive" : "close");
    }
  }

  /** What {@code wire} reads as, the same for every way of cutting it; {@code closed} ends it with the connection. */
  private static List<Read> read(String wire, boolean closed) throws Exception {
    byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
    List<Read> whole = readIn(bytes, new int[0], closed);
    for (int cut = 1; cut < bytes.length; cut++) {
      assertThat(readIn(bytes, new int[] {cut}, closed)).as("cut at %d", cut).isEqualTo(whole);
    }
    int[] every = new int[Math.max(0, bytes.length - 1)];
    for (int i = 0; i < every.length; i++) {
      every[i] = i + 1;
    }
    assertThat(readIn(bytes, every, closed)).as("a byte at a time").isEqualTo(whole);
    return whole;
  }

  private static List<Read> readIn(byte[] bytes, int[] cuts, boolean closed) throws Exception {
    AnswerDecoder d = new AnswerDecoder(1 << 20);
    List<Read> out = new ArrayList<>();
    AnswerDecoder.Sink sink = (s, b, k) -> out.add(new Read(s, new String(b, StandardCharsets.ISO_8859_1), k));
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : bytes.length;
      ByteBuf part = Unpooled.wrappedBuffer(bytes, from, to - from);
      d.read(part, sink);
      assertThat(part.isReadable()).as("every byte read").isFalse();
      from = to;
    }
    if (closed) {
      d.closed(sink);
    }
    return out;
  }

  @Test
  void readsLengthFramedAnswersOneAfterAnother() throws Exception {
    assertThat(read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        + "HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n"
        + "HTTP/1.1 400 Bad Request\r\ncontent-length:  11 \r\nContent-Type: text/plain\r\n\r\nentry wrong"
        + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false))
        .containsExactly(new Read(200, "ok", true), new Read(204, "", true), new Read(400, "entry wrong", true),
            new Read(200, "", true));
  }

  @Test
  void readsChunkedAnswersWithExtensionsAndTrailersAfterAnInterimOne() throws Exception {
    assertThat(read("HTTP/1.1 100 Continue\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "4\r\none,\r\n4;ext=1\r\ntwo,\r\nA \r\nthree-four\r\n0\r\nX-Trailer: t\r\n\r\n"
        + "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 99\r\n\r\n3\r\nbad\r\n0\r\n\r\n", false))
        .containsExactly(new Read(200, "one,two,three-four", true), new Read(503, "bad", true));
  }

  @Test
  void keepsTheConnectionAsTheVersionAndConnectionHeaderSay() throws Exception {
    assertThat(read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na", false))
        .containsExactly(new Read(200, "a", false));
    assertThat(read("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nb", false)).containsExactly(new Read(200, "b", false));
    assertThat(read("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nc", false))
        .containsExactly(new Read(200, "c", true));
    assertThat(read("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 1\r\n\r\nd", false))
        .containsExactly(new Read(200, "d", false));
  }

  @Test
  void readsAnAnswerWithoutALengthUntilTheClose() throws Exception {
    assertThat(read("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nread until the end", true))
        .containsExactly(new Read(200, "read until the end", false));
    // without the close it is not whole
    assertThat(readIn("HTTP/1.1 200 OK\r\n\r\nmore".getBytes(StandardCharsets.US_ASCII), new int[0], false)).isEmpty();
  }

  @Test
  void acceptsBareLineFeedsEmptyLinesBeforeAnAnswerAndAStatusWithoutReason() throws Exception {
    assertThat(read("\r\n\nHTTP/1.1 201\nContent-Length: 3\n\nabc", false)).containsExactly(new Read(201, "abc", true));
  }

  @Test
  void anAnswerCutShortByTheCloseIsNotWhole() throws Exception {
    AnswerDecoder d = new AnswerDecoder(1 << 20);
    List<Integer> got = new ArrayList<>();
    d.read(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", StandardCharsets.US_ASCII),
        (s, b, k) -> got.add(s));
    assertThat(d.closed((s, b, k) -> got.add(s))).isFalse();
    assertThat(got).isEmpty();
  }

  @Test
  void refusesBytesThatAreNotAnAnswer() {
    String[] invalid = {
      "hello there\r\n\r\n",
      "HTTP/2 200\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "HTTP/1.1 2000 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
    };
    for (String wire : invalid) {
      AnswerDecoder d = new AnswerDecoder(1 << 20);
      assertThatThrownBy(() -> d.read(Unpooled.copiedBuffer(wire, StandardCharsets.US_ASCII), (s, b, k) -> {}))
          .as(wire).isInstanceOf(AnswerDecoder.Invalid.class);
    }
  }

  @Test
  void refusesAHeadOrBodyLargerThanAllowed() {
    AnswerDecoder head = new AnswerDecoder(1 << 20);
    String longHead = "HTTP/1.1 200 OK\r\nX-Long: " + "a".repeat(AnswerDecoder.MAX_HEAD_BYTES) + "\r\n\r\n";
    assertThatThrownBy(() -> head.read(Unpooled.copiedBuffer(longHead, StandardCharsets.US_ASCII), (s, b, k) -> {}))
        .isInstanceOf(AnswerDecoder.Invalid.class).hasMessageContaining("longer than");
    AnswerDecoder length = new AnswerDecoder(100);
    assertThatThrownBy(() -> length.read(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n",
        StandardCharsets.US_ASCII), (s, b, k) -> {})).isInstanceOf(AnswerDecoder.Invalid.class)
        .hasMessageContaining("more than 100 bytes");
    AnswerDecoder chunks = new AnswerDecoder(100);
    assertThatThrownBy(() -> chunks.read(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "40\r\n" + "a".repeat(64) + "\r\n40\r\n", StandardCharsets.US_ASCII), (s, b, k) -> {}))
        .isInstanceOf(AnswerDecoder.Invalid.class).hasMessageContaining("more than 100 bytes");
    AnswerDecoder untilClose = new AnswerDecoder(100);
    assertThatThrownBy(() -> untilClose.read(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\n\r\n" + "a".repeat(101),
        StandardCharsets.US_ASCII), (s, b, k) -> {})).isInstanceOf(AnswerDecoder.Invalid.class);
  }

  /** A body larger than the pending buffer's start arrives whole, byte for byte. */
  @Test
  void readsALargeBodyWhole() throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 300_000; i++) {
      b.append((char) ('a' + i % 23));
    }
    AnswerDecoder d = new AnswerDecoder(1 << 20);
    List<Read> out = new ArrayList<>();
    byte[] wire = ("HTTP/1.1 200 OK\r\nContent-Length: " + b.length() + "\r\n\r\n" + b).getBytes(StandardCharsets.US_ASCII);
    for (int at = 0; at < wire.length; at += 8192) {
      d.read(Unpooled.wrappedBuffer(wire, at, Math.min(8192, wire.length - at)),
          (s, body, k) -> out.add(new Read(s, new String(body, StandardCharsets.US_ASCII), k)));
    }
    assertThat(out).containsExactly(new Read(200, b.toString(), true));
  }
}
