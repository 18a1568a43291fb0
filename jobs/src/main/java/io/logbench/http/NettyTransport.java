package io.logbench.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HttpTransport} on Netty: keep-alive connections (the most recently used first, so a
 * steady load keeps as few open as it has requests in flight) on the JVM's shared {@link
 * EventLoops}, answers read by an {@link AnswerDecoder} on the connection's I/O thread.
 *
 * <p>A request is written by the thread that posts it, straight to an idle connection's socket,
 * when the connection is plain TCP on the native epoll transport: the request's head and body
 * are copied into one pooled direct buffer and written with one non-blocking system call, and the
 * I/O thread only wakes for the answer. Handing the write to the I/O thread instead (Netty's way)
 * woke it twice a request, once to write and once to read: about half its CPU at a steady rate,
 * where each request has wake-ups of its own (docs/benchmarks.md, eleventh round). What the socket
 * does not take at once, a request that needs a new connection, TLS and Java's NIO transport go
 * through the I/O thread, in the same bytes. The I/O thread alone reads; a connection carries one
 * request at a time (no pipelining), so the two threads never write to one socket at once.
 *
 * <p>An exchange ends exactly once: with its answer, with the connection's close, or at its
 * deadline (checked by a sweep on the I/O thread every tenth of the request timeout, at most
 * every second), whichever claims it first. A connection the server closed while idle is noticed
 * when its close reaches the I/O thread; a request written to it in the moment before fails as an
 * I/O error.
 */
final class NettyTransport implements HttpTransport {

  private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);

  /** Largest answer read (Elasticsearch bulk answers list every item: about 100 bytes a line). */
  private static final int MAX_ANSWER_BYTES = 64 << 20;

  private final Settings settings;
  private final String host;
  private final int port;
  private final String hostHeader;
  private final long requestTimeoutNanos;
  /**
   * The one I/O thread of this transport's connections (one of the shared group's, in turn):
   * connecting, reading every answer, and writing what the posting thread could not.
   */
  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private final SslContext ssl;
  /** Whether posting threads write to idle connections themselves: plain TCP on epoll. */
  private final boolean posterWrites;
  /** Idle connections, the most recently used last; taken by posting threads and the I/O thread. */
  private final ConcurrentLinkedDeque<Channel> idle = new ConcurrentLinkedDeque<>();
  private final Set<Channel> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong connectionsOpened = new AtomicLong();
  private final AtomicLong writtenByPoster = new AtomicLong();
  private final AtomicLong writtenInParts = new AtomicLong();
  private final ScheduledFuture<?> sweep;
  private volatile boolean closed;

  NettyTransport(Settings settings) {
    this.settings = settings;
    URI base = settings.base();
    boolean https = "https".equals(base.getScheme());
    this.host = base.getHost();
    this.port = base.getPort() > 0 ? base.getPort() : https ? 443 : 80;
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    this.hostHeader = base.getPort() > 0 ? h + ":" + port : h;
    this.requestTimeoutNanos = settings.requestTimeout().toNanos();
    this.ssl = https ? Tls.clientContext(settings.tls(), settings.name()) : null;
    this.loop = EventLoops.acquire().next();
    this.posterWrites = ssl == null && EventLoops.socketChannel() == EpollSocketChannel.class;
    this.bootstrap =
        new Bootstrap()
            .group(loop)
            .channel(EventLoops.socketChannel())
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            // resolved at each connect, so a changed DNS name is followed
            .remoteAddress(InetSocketAddress.createUnresolved(host, port))
            .handler(new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                setUp(ch);
              }
            });
    long every = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(TimeUnit.SECONDS.toNanos(1), requestTimeoutNanos / 10));
    this.sweep = loop.scheduleAtFixedRate(this::sweep, every, every, TimeUnit.NANOSECONDS);
  }

  @Override
  public Endpoint endpoint(URI uri, Map<String, String> headers) {
    URI base = settings.base();
    int p = uri.getPort() > 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    if (!base.getScheme().equals(uri.getScheme()) || !host.equalsIgnoreCase(uri.getHost()) || p != port) {
      throw new IllegalArgumentException(
          "The URL " + uri + " is not on the server " + base.getScheme() + "://" + hostHeader + " of " + settings.name() + ".");
    }
    String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    // Netty's header map checks names and values (no line breaks: no header injection)
    HttpHeaders checked = new DefaultHttpHeaders();
    checked.set(HttpHeaderNames.HOST, hostHeader);
    headers.forEach(checked::set);
    StringBuilder head = new StringBuilder("POST ").append(target).append(" HTTP/1.1\r\n");
    checked.forEach(e -> head.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n"));
    byte[] start = head.toString().getBytes(StandardCharsets.UTF_8);
    return (contentType, body, answer) -> post(start, contentType, body, answer);
  }

  /** Connections opened so far (a pool that keeps them alive opens about as many as requests in flight). */
  long connectionsOpened() {
    return connectionsOpened.get();
  }

  /** Connections open now. */
  int openConnections() {
    return open.size();
  }

  /** Requests the posting thread wrote whole to the socket itself, without the I/O thread. */
  long writtenByPoster() {
    return writtenByPoster.get();
  }

  /** Requests the posting thread began and the I/O thread ended, as the socket did not take them at once. */
  long writtenInParts() {
    return writtenInParts.get();
  }

  private void post(byte[] start, String contentType, RequestBody body, Answer answer) {
    if (closed) {
      body.release();
      answer.failed(new IOException("The HTTP transport of " + settings.name() + " is closed."));
      return;
    }
    int size;
    try {
      size = RequestBytes.size(start, contentType, body.length());
    } catch (IllegalArgumentException e) {
      body.release();
      answer.failed(e);
      return;
    }
    if (posterWrites && size <= RequestBytes.MAX_BYTES && !loop.inEventLoop()) {
      // every connection of this transport is an epoll one; a closed one is dropped here
      for (Channel ch = idle.pollLast(); ch != null; ch = idle.pollLast()) {
        if (ch.isActive()) {
          exchange(ch).writeHere(((EpollSocketChannel) ch).fd(), start, contentType, body, answer);
          return;
        }
      }
    }
    ByteBuf request = RequestBytes.pooled(start, contentType, body);
    loop.execute(() -> send(request, answer));
  }

  /** On {@link #loop}: the most recently used idle connection, or a new one, then the request on it. */
  private void send(ByteBuf request, Answer answer) {
    for (Channel ch = idle.pollLast(); ch != null; ch = idle.pollLast()) {
      if (ch.isActive()) {
        exchange(ch).writeOnLoop(request, answer);
        return;
      }
    }
    ChannelFuture connected = bootstrap.connect();
    connected.addListener(f -> {
      if (!f.isSuccess()) {
        request.release();
        answer.failed(connectFailure(f.cause()));
        return;
      }
      exchange(connected.channel()).writeOnLoop(request, answer);
    });
  }

  private static Exchange exchange(Channel ch) {
    return ch.pipeline().get(Exchange.class);
  }

  /** On {@link #loop}: a connection whose exchange ended goes back to the idle ones while it is open. */
  private void release(Channel ch) {
    if (ch.isActive() && !closed) {
      idle.addLast(ch);
    }
  }

  /** On {@link #loop}: ends every exchange past its deadline. */
  private void sweep() {
    long now = System.nanoTime();
    for (Channel ch : open) {
      Exchange e = exchange(ch);
      if (e != null) {
        e.timeOutIfDue(now);
      }
    }
  }

  private IOException connectFailure(Throwable cause) {
    String where = " to " + settings.name() + " at " + hostHeader;
    if (cause instanceof ConnectTimeoutException) {
      return new HttpConnectTimeoutException("No connection" + where + " within " + settings.connectTimeout().toMillis() + " ms.");
    }
    if (cause instanceof java.net.ConnectException) {
      // Netty's own subclass names the address; keep the JDK's class for the reports
      java.net.ConnectException e = new java.net.ConnectException(cause.getMessage());
      e.initCause(cause);
      return e;
    }
    if (cause instanceof IOException io) {
      return io;
    }
    return new IOException("Could not connect" + where + ": " + cause, cause);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    sweep.cancel(false);
    for (Channel ch : open) {
      ch.close();
    }
    EventLoops.release();
  }

  @Override
  public String toString() {
    return "NettyTransport{" + settings.base().getScheme() + "://" + hostHeader + ", " + settings.name() + "}";
  }

  /** Sets up each new connection: TLS for https, the answer decoder, whole answers, the exchange. */
  private void setUp(Channel ch) {
    connectionsOpened.incrementAndGet();
    open.add(ch);
    ch.closeFuture().addListener(f -> {
      open.remove(ch);
      idle.remove(ch);
    });
    if (closed) {
      ch.close();
    }
    if (ssl != null) {
      SSLEngine engine = ssl.newEngine(ch.alloc(), host, port);
      if (!settings.tls().insecure()) {
        SSLParameters params = engine.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(params);
      }
      ch.pipeline().addLast(new SslHandler(engine));
    }
    // every request is a POST, so an answer's body is read as its headers say (never a HEAD's)
    ch.pipeline().addLast(new Exchange(ch));
  }

  /**
   * The request on one connection, if any, and its answer. The answer callback is claimed
   * atomically by whichever ends the exchange (the answer, the connection's close, the deadline,
   * a failed write); everything else runs on the connection's I/O thread, but for {@link
   * #writeHere}, which sets the exchange up before its bytes leave.
   */
  private final class Exchange extends ChannelInboundHandlerAdapter {
    private final Channel ch;
    private final ChannelFutureListener written = f -> {
      if (!f.isSuccess()) {
        fail(ioError("The request could not be written", f.cause()), true);
      }
    };
    private final AnswerDecoder decoder = new AnswerDecoder(MAX_ANSWER_BYTES);
    private final AnswerDecoder.Sink answers = this::answered;
    /** The request's callback until its exchange ends; null between requests. */
    private volatile Answer answer;
    private volatile long deadlineNanos;

    Exchange(Channel ch) {
      this.ch = ch;
    }

    /**
     * On the posting thread: the request written to the socket from here, the rest (if the socket
     * did not take it all) handed to the I/O thread.
     */
    void writeHere(FileDescriptor fd, byte[] start, String contentType, RequestBody body, Answer a) {
      deadlineNanos = System.nanoTime() + requestTimeoutNanos;
      answer = a;
      if (!ch.isActive()) {
        // closed after it was taken: its close may have come before the answer was set; the
        // callback runs on the I/O thread, as every answer's does
        body.release();
        loop.execute(() -> fail(new IOException("The connection to " + settings.name()
            + " closed before the request was sent."), false));
        return;
      }
      ByteBuffer request = RequestBytes.inThreadBuffer(start, contentType, body);
      int length = request.limit();
      int n;
      try {
        n = fd.write(request, 0, length);
      } catch (IOException e) {
        loop.execute(() -> fail(ioError("The request could not be written", e), true));
        return;
      }
      if (n == length) {
        writtenByPoster.incrementAndGet();
        return;
      }
      // the rest leaves this thread's buffer, which its next request fills again
      ByteBuf rest = PooledByteBufAllocator.DEFAULT.directBuffer(length - n);
      rest.writeBytes(request.position(n));
      writtenInParts.incrementAndGet();
      loop.execute(() -> ch.writeAndFlush(rest).addListener(written));
    }

    /** On the I/O thread: the request through the channel's pipeline. */
    void writeOnLoop(ByteBuf request, Answer a) {
      if (!ch.isActive() || answer != null) {
        request.release();
        release(ch);
        a.failed(new IOException("The connection to " + settings.name() + " closed before the request was sent."));
        return;
      }
      deadlineNanos = System.nanoTime() + requestTimeoutNanos;
      answer = a;
      ch.writeAndFlush(request).addListener(written);
    }

    /** On the I/O thread: the exchange times out when its deadline passed. */
    void timeOutIfDue(long now) {
      if (answer != null && now - deadlineNanos >= 0) {
        fail(new HttpTimeoutException("No answer from " + settings.name() + " within "
            + settings.requestTimeout().toMillis() + " ms."), true);
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof ByteBuf bytes) {
          decoder.read(bytes, answers);
        }
      } catch (AnswerDecoder.Invalid e) {
        ch.close(); // out of step for good, whether or not a request waits
        fail(new IOException("The answer is not valid HTTP (" + settings.name() + "): " + e.getMessage(), e), false);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    /** An answer read whole: the request's, or one nobody asked for (the connection is then out of step). */
    private void answered(int status, byte[] body, boolean keepAlive) {
      Answer a = claim();
      if (a == null) {
        // an answer nobody asked for, or one after the timeout
        ch.close();
        return;
      }
      if (!keepAlive) {
        ch.close();
      }
      release(ch);
      call(a, status, body);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      decoder.closed(answers); // an answer read until the close ends here
      fail(new IOException("The connection to " + settings.name() + " closed before the answer."), false);
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (answer == null) {
        LOG.debug("Connection to {} failed between requests: {}", settings.name(), cause.toString());
        ch.close();
        return;
      }
      fail(ioError("The connection failed", cause), true);
    }

    /** The callback, for the one caller that ends the exchange; null for any other. */
    private Answer claim() {
      return ANSWER.getAndSet(this, null);
    }

    private void fail(IOException error, boolean close) {
      Answer a = claim();
      if (a == null) {
        return;
      }
      if (close) {
        ch.close();
      }
      release(ch);
      try {
        a.failed(error);
      } catch (RuntimeException e) {
        LOG.error("The answer callback of {} failed; this is a bug.", settings.name(), e);
      }
    }

    private void call(Answer a, int status, byte[] body) {
      try {
        a.answered(status, body);
      } catch (RuntimeException e) {
        LOG.error("The answer callback of {} failed; this is a bug.", settings.name(), e);
      }
    }

    private IOException ioError(String what, Throwable cause) {
      if (cause instanceof IOException io) {
        return io;
      }
      Throwable c = cause.getCause() instanceof IOException ? cause.getCause() : cause;
      return new IOException(what + " (" + settings.name() + "): " + c, c);
    }
  }

  private static final AtomicReferenceFieldUpdater<Exchange, Answer> ANSWER =
      AtomicReferenceFieldUpdater.newUpdater(Exchange.class, Answer.class, "answer");
}
