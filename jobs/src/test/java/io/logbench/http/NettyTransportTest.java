package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transport against a Netty loopback server: answers and statuses pass through, bodies are
 * released once, timeouts and I/O errors are told apart, and 10,000 requests start no thread and
 * reuse their keep-alive connections.
 */
class NettyTransportTest {

  private EventLoopGroup serverGroup;
  private Channel server;
  private URI base;
  private final AtomicInteger requests = new AtomicInteger();
  private final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> heads = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void startServer() throws Exception {
    serverGroup = new NioEventLoopGroup(1);
    server = new ServerBootstrap()
        .group(serverGroup)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 << 20), new Handler());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    base = URI.create("http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());
  }

  @AfterEach
  void stopServer() {
    server.close().syncUninterruptibly();
    serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * /ok answers 200 "ok", /status/N answers N with "status N", /hang never answers, /close hangs
   * up, /chunked answers an interim 100 then "one,two,three" in three chunks, /bye answers "ok"
   * and closes the connection, /big answers {@link #BIG} bytes (the decoder hands them on in
   * parts of 8 KB), /raw/NAME writes the bytes of {@link #RAW}'s NAME as they are and closes the
   * connection.
   */
  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      requests.incrementAndGet();
      String uri = req.uri();
      if (uri.startsWith("/record")) {
        bodies.add(req.content().toString(StandardCharsets.UTF_8) + "|" + req.headers().get("X-Test"));
      }
      if (uri.startsWith("/head")) {
        heads.add(req.method() + " " + uri + " " + req.protocolVersion() + " " + req.decoderResult().isSuccess() + " "
            + req.headers().get("Host") + " " + req.headers().get("Content-Type") + " "
            + req.headers().get("Content-Length") + " " + req.headers().get("X-Test") + " "
            + req.content().readableBytes());
      }
      if (uri.startsWith("/sum")) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(req.content().nioBuffer());
        byte[] sum = (req.content().readableBytes() + " " + crc.getValue()).getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(sum));
        HttpUtil.setContentLength(res, sum.length);
        ctx.writeAndFlush(res);
        return;
      }
      if (uri.startsWith("/hang")) {
        return;
      }
      if (uri.startsWith("/close")) {
        ctx.close();
        return;
      }
      if (uri.startsWith("/raw/")) {
        // past the server's encoder, which only writes HTTP objects
        ctx.pipeline().firstContext().writeAndFlush(Unpooled.copiedBuffer(RAW.get(uri.substring(5)), StandardCharsets.US_ASCII))
            .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
        return;
      }
      if (uri.startsWith("/big")) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(big()));
        HttpUtil.setContentLength(res, BIG);
        ctx.writeAndFlush(res);
        return;
      }
      if (uri.startsWith("/chunked")) {
        ctx.write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpUtil.setTransferEncodingChunked(head, true);
        ctx.write(head);
        ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("one,", StandardCharsets.US_ASCII)));
        ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("two,", StandardCharsets.US_ASCII)));
        ctx.writeAndFlush(new DefaultLastHttpContent(Unpooled.copiedBuffer("three", StandardCharsets.US_ASCII)));
        return;
      }
      int status = uri.startsWith("/status/") ? Integer.parseInt(uri.substring("/status/".length())) : 200;
      byte[] body = (status == 200 ? "ok" : "status " + status).getBytes(StandardCharsets.US_ASCII);
      FullHttpResponse res = new DefaultFullHttpResponse(
          HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
      HttpUtil.setContentLength(res, body.length);
      if (uri.startsWith("/bye")) {
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(res).addListener(io.netty.channel.ChannelFutureListener.CLOSE);
        return;
      }
      ctx.writeAndFlush(res);
    }
  }

  private static final int BIG = 300_000;

  /** {@link #BIG} bytes of a repeating pattern, so a part out of place or lost shows. */
  private static byte[] big() {
    byte[] b = new byte[BIG];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + i % 23);
    }
    return b;
  }

  /** Answers /raw/NAME writes as they are. */
  private static final Map<String, String> RAW = Map.of(
      "not-http", "hello there\r\n\r\n",
      "until-close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nread until the end",
      "bad-chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n");

  /** The answer of one request: status and body, or the failure. */
  private record Result(int status, String body, Throwable error) {}

  private static final class Waiting implements HttpTransport.Answer {
    final CompletableFuture<Result> result = new CompletableFuture<>();

    @Override
    public void answered(int status, byte[] body) {
      result.complete(new Result(status, new String(body, StandardCharsets.UTF_8), null));
    }

    @Override
    public void failed(Throwable error) {
      result.complete(new Result(0, null, error));
    }
  }

  private static Result post(HttpTransport t, URI uri, HttpTransport.RequestBody body) throws Exception {
    Waiting w = new Waiting();
    t.endpoint(uri, Map.of("X-Test", "yes")).post("text/plain", body, w);
    return w.result.get(30, TimeUnit.SECONDS);
  }

  @Test
  void passesStatusesBodiesAndHeadersThrough() throws Exception {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      Result ok = post(t, base.resolve("/record?x=1"), HttpTransport.RequestBody.of("hello".getBytes(StandardCharsets.UTF_8)));
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("ok");
      assertThat(bodies).containsExactly("hello|yes");
      for (int status : new int[] {204, 400, 429, 503}) {
        Result r = post(t, base.resolve("/status/" + status), HttpTransport.RequestBody.of(new byte[] {1}));
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.body()).isEqualTo(status == 204 ? "" : "status " + status);
      }
    }
  }

  @Test
  void releasesEachBodyOnceAndWritesOnlyItsLength() throws Exception {
    CountedBody body = new CountedBody("abcdefgh".getBytes(StandardCharsets.US_ASCII), 3);
    AtomicInteger released = body.released;
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      assertThat(post(t, base.resolve("/record"), body).status()).isEqualTo(200);
      assertThat(bodies).containsExactly("abc|yes");
      assertThat(released).hasValue(1);
      // a failed request releases its body too
      assertThat(post(t, base.resolve("/close"), body).error()).isInstanceOf(IOException.class);
      assertThat(released).hasValue(2);
    }
  }

  /**
   * On the epoll transport, a request to an idle connection is written by the thread that posts
   * it (the I/O thread only reads the answer); the first, which connects, goes through the I/O
   * thread. The answers and the server's requests are the same either way.
   */
  @Test
  void requestsToAnIdleConnectionAreWrittenByThePostingThread() throws Exception {
    try (NettyTransport t = (NettyTransport) HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      org.junit.jupiter.api.Assumptions.assumeTrue("epoll".equals(EventLoops.transport()),
          "the posting thread writes only on Netty's epoll transport; this JVM runs " + EventLoops.transport());
      for (int i = 0; i < 50; i++) {
        Result r = post(t, base.resolve("/record"), HttpTransport.RequestBody.of(("body " + i).getBytes(StandardCharsets.UTF_8)));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
      }
      assertThat(t.writtenByPoster()).isEqualTo(49);
      assertThat(t.connectionsOpened()).isEqualTo(1);
      assertThat(bodies).hasSize(50).first().isEqualTo("body 0|yes");
      assertThat(bodies).last().isEqualTo("body 49|yes");
    }
  }

  /**
   * A request larger than the socket takes in one write (almost 8 MB; Linux buffers at most 4 MB of
   * a loopback connection): the posting thread writes what the socket takes, the I/O thread the
   * rest, and the server gets every byte in order. The next request is written whole again.
   */
  @Test
  void aRequestTheSocketDoesNotTakeAtOnceArrivesWhole() throws Exception {
    try (NettyTransport t = (NettyTransport) HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      org.junit.jupiter.api.Assumptions.assumeTrue("epoll".equals(EventLoops.transport()),
          "the posting thread writes only on Netty's epoll transport; this JVM runs " + EventLoops.transport());
      assertThat(post(t, base.resolve("/ok"), HttpTransport.RequestBody.of(new byte[1])).status()).isEqualTo(200);
      byte[] big = new byte[RequestBytes.MAX_BYTES - 4096];
      for (int i = 0; i < big.length; i++) {
        big[i] = (byte) (i * 31 + (i >>> 13));
      }
      java.util.zip.CRC32 crc = new java.util.zip.CRC32();
      crc.update(big);
      Result r = post(t, base.resolve("/sum"), HttpTransport.RequestBody.of(big));
      assertThat(r.error()).isNull();
      assertThat(r.body()).isEqualTo(big.length + " " + crc.getValue());
      assertThat(t.writtenInParts()).as("requests the I/O thread finished").isEqualTo(1);
      assertThat(t.writtenByPoster()).isZero();
      assertThat(post(t, base.resolve("/record"), HttpTransport.RequestBody.of("after".getBytes(StandardCharsets.UTF_8))).status())
          .isEqualTo(200);
      assertThat(t.writtenByPoster()).isEqualTo(1);
      assertThat(bodies).containsExactly("after|yes");
    }
  }

  /** An answer in chunks after an interim 100 is one body, and its connection is used again. */
  @Test
  void aChunkedAnswerAfterAnInterimOneIsWholeAndItsConnectionServesTheNext() throws Exception {
    try (NettyTransport t = (NettyTransport) HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      for (int i = 0; i < 3; i++) {
        Result r = post(t, base.resolve("/chunked"), HttpTransport.RequestBody.of(new byte[] {1}));
        assertThat(r.error()).isNull();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("one,two,three");
      }
      assertThat(t.connectionsOpened()).isEqualTo(1);
    }
  }

  /** A body the decoder hands on in many parts is whole, byte for byte, and the connection serves the next. */
  @Test
  void aLargeAnswerIsWholeAndItsConnectionServesTheNext() throws Exception {
    try (NettyTransport t = (NettyTransport) HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      Result r = post(t, base.resolve("/big"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(r.error()).isNull();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(new String(big(), StandardCharsets.US_ASCII));
      assertThat(post(t, base.resolve("/ok"), HttpTransport.RequestBody.of(new byte[] {1})).body()).isEqualTo("ok");
      assertThat(t.connectionsOpened()).isEqualTo(1);
    }
  }

  /** An answer without a length is read until the server closes the connection. */
  @Test
  void anAnswerWithoutALengthEndsWithItsConnection() throws Exception {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      Result r = post(t, base.resolve("/raw/until-close"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(r.error()).isNull();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("read until the end");
    }
  }

  /** Bytes that are not an HTTP answer, or a chunk whose size is not a number, fail the request as I/O errors. */
  @Test
  void anAnswerThatIsNotHttpIsAnIoError() throws Exception {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      for (String raw : new String[] {"not-http", "bad-chunk"}) {
        Result r = post(t, base.resolve("/raw/" + raw), HttpTransport.RequestBody.of(new byte[] {1}));
        assertThat(r.error()).as(raw).isInstanceOf(IOException.class).hasMessageContaining("not valid HTTP")
            .isNotInstanceOf(HttpTimeoutException.class);
      }
      assertThat(post(t, base.resolve("/ok"), HttpTransport.RequestBody.of(new byte[] {1})).status()).isEqualTo(200);
    }
  }

  /** An answer that says Connection: close is read whole; the next request opens a new connection. */
  @Test
  void anAnswerThatClosesItsConnectionIsWholeAndTheNextRequestConnectsAgain() throws Exception {
    try (NettyTransport t = (NettyTransport) HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      Result r = post(t, base.resolve("/bye"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("ok");
      Result next = post(t, base.resolve("/ok"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(next.status()).isEqualTo(200);
      assertThat(t.connectionsOpened()).isEqualTo(2);
    }
  }

  @Test
  void aRequestWithoutAnswerTimesOutAndTheNextOneStillWorks() throws Exception {
    HttpTransport.Settings s = HttpTransport.Settings.of(base, "test").requestTimeout(Duration.ofMillis(300));
    try (HttpTransport t = HttpTransport.open(s)) {
      Result r = post(t, base.resolve("/hang"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(r.error()).isInstanceOf(HttpTimeoutException.class).hasMessageContaining("within 300 ms");
      assertThat(post(t, base.resolve("/ok"), HttpTransport.RequestBody.of(new byte[] {1})).status()).isEqualTo(200);
    }
  }

  @Test
  void aConnectionClosedUnderARequestIsAnIoErrorNotATimeout() throws Exception {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      Result r = post(t, base.resolve("/close"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(r.error()).isInstanceOf(IOException.class).isNotInstanceOf(HttpTimeoutException.class);
    }
  }

  @Test
  void aRefusedConnectionIsAConnectException() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    URI closed = URI.create("http://127.0.0.1:" + port);
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(closed, "test"))) {
      Result r = post(t, closed.resolve("/ok"), HttpTransport.RequestBody.of(new byte[] {1}));
      assertThat(r.error()).isExactlyInstanceOf(ConnectException.class);
    }
  }

  /**
   * A strict HTTP server reads each request's head: the method, target with its query, version,
   * Host, the endpoint's own headers, each request's content type and length, for bodies from 0
   * bytes to a megabyte and a content type that changes from one request to the next.
   */
  @Test
  void writesRequestHeadsAServerParses() throws Exception {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      HttpTransport.Endpoint e = t.endpoint(base.resolve("/head/p?a=1&b=%20"), Map.of("X-Test", "yes"));
      String host = "127.0.0.1:" + base.getPort();
      int[] lengths = {0, 1, 9, 10, 99, 100, 12_345, 1 << 20};
      for (int i = 0; i < lengths.length; i++) {
        String type = i % 2 == 0 ? "application/json" : "application/x-ndjson; charset=utf-8";
        Waiting w = new Waiting();
        e.post(type, HttpTransport.RequestBody.of(new byte[lengths[i]]), w);
        assertThat(w.result.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(heads.poll()).isEqualTo(
            "POST /head/p?a=1&b=%20 HTTP/1.1 true " + host + " " + type + " " + lengths[i] + " yes " + lengths[i]);
      }
    }
  }

  /**
   * A content type that would not be one header line fails its request without a write (the body
   * released), and the transport serves the next request.
   */
  @Test
  void aContentTypeThatIsNotOneHeaderLineFailsItsRequestOnly() throws Exception {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      CountedBody body = new CountedBody(new byte[3], 3);
      AtomicInteger released = body.released;
      Waiting w = new Waiting();
      t.endpoint(base.resolve("/ok"), Map.of()).post("text/plain\r\nx-injected: 1", body, w);
      Result r = w.result.get(30, TimeUnit.SECONDS);
      assertThat(r.error()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not printable ASCII");
      assertThat(released).hasValue(1);
      assertThat(post(t, base.resolve("/ok"), HttpTransport.RequestBody.of(new byte[1])).status()).isEqualTo(200);
      assertThat(requests).hasValue(1);
    }
  }

  /** A configured header whose value would end the head early (a header injection) is refused when the endpoint is made. */
  @Test
  void refusesAHeaderValueThatWouldBreakTheRequestHead() {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> t.endpoint(base.resolve("/ok"), Map.of("X-Bad", "a\r\nX-Injected: 1")))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void refusesAnEndpointOnAnotherServer() {
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> t.endpoint(URI.create("http://example.org/x"), Map.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not on the server");
    }
  }

  /**
   * The issue this transport fixes: the JDK client started a thread per request. 10,000 requests,
   * 16 in flight, must start no thread at all once the transport is warm (a bound of 2 leaves room
   * for JVM housekeeping threads), and keep the thread count flat; keep-alive holds the
   * connections to about the requests in flight.
   */
  @Test
  void tenThousandRequestsStartNoThreadAndReuseConnections() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    int inFlight = 16;
    try (NettyTransport t = (NettyTransport) HttpTransport.open(HttpTransport.Settings.of(base, "test"))) {
      HttpTransport.Endpoint ok = t.endpoint(base.resolve("/ok"), Map.of());
      send(ok, 200, inFlight); // warm-up: the I/O threads and connections exist from here on
      long startedBefore = threads.getTotalStartedThreadCount();
      int liveBefore = threads.getThreadCount();
      int requestsBefore = requests.get();

      AtomicInteger peak = new AtomicInteger();
      send(ok, 10_000, inFlight, () -> peak.accumulateAndGet(threads.getThreadCount(), Math::max));

      assertThat(requests.get() - requestsBefore).isEqualTo(10_000);
      assertThat(threads.getTotalStartedThreadCount() - startedBefore)
          .as("threads started during 10,000 requests").isLessThanOrEqualTo(2);
      assertThat(peak.get()).as("most live threads during the requests").isLessThanOrEqualTo(liveBefore + 2);
      assertThat(t.connectionsOpened()).as("connections opened").isLessThanOrEqualTo(inFlight);
      if ("epoll".equals(EventLoops.transport())) {
        assertThat(t.writtenByPoster()).as("requests the posting threads wrote").isGreaterThan(9_000);
      }
    }
  }

  private static void send(HttpTransport.Endpoint endpoint, int n, int inFlight) throws Exception {
    send(endpoint, n, inFlight, () -> {});
  }

  /** Sends {@code n} requests, at most {@code inFlight} unanswered; fails on any non-200. */
  private static void send(HttpTransport.Endpoint endpoint, int n, int inFlight, Runnable sample) throws Exception {
    Semaphore permits = new Semaphore(inFlight);
    CountDownLatch done = new CountDownLatch(n);
    AtomicReference<String> problem = new AtomicReference<>();
    byte[] body = new byte[1000];
    for (int i = 0; i < n; i++) {
      assertThat(permits.tryAcquire(30, TimeUnit.SECONDS)).as("a permit within 30 s").isTrue();
      if (i % 100 == 0) {
        sample.run();
      }
      endpoint.post("application/octet-stream", HttpTransport.RequestBody.of(body), new HttpTransport.Answer() {
        @Override
        public void answered(int status, byte[] answer) {
          if (status != 200) {
            problem.compareAndSet(null, "status " + status);
          }
          permits.release();
          done.countDown();
        }

        @Override
        public void failed(Throwable error) {
          problem.compareAndSet(null, error.toString());
          permits.release();
          done.countDown();
        }
      });
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).as("every answer within 60 s").isTrue();
    assertThat(problem.get()).as("first problem").isNull();
  }
}
