package io.logbench.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.SimpleChannelPool;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HttpTransport} on Netty's HTTP/1.1 codec: a {@link SimpleChannelPool} of keep-alive
 * connections (most recently used first, so a steady load keeps as few open as it has requests in
 * flight), on the JVM's shared {@link EventLoops}. A request's body is the caller's array wrapped
 * as it is; Netty's pooled allocator holds everything else (headers, answers, socket copies).
 *
 * <p>Each connection carries one request at a time (no pipelining); its handler times the request
 * out on the connection's own event loop and closes the connection then, since an answer may
 * still be on its way. A connection the server closed while idle is noticed by the pool's health
 * check before reuse; one that closes under a request fails that request as an I/O error.
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
   * The one I/O thread of this transport's connections (one of the shared group's, in turn): a
   * request is then one hand-off to it, the pool's acquire and the write both on it. With the
   * connections spread over the group, the pool handed each acquire to the connection's thread and
   * the write to it again when the acquire had finished first: up to two wake-ups of an I/O thread
   * a request instead of one.
   */
  private final EventLoop loop;
  private final SimpleChannelPool pool;
  private final SslContext ssl;
  private final Set<Channel> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong connectionsOpened = new AtomicLong();
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
    Bootstrap bootstrap =
        new Bootstrap()
            .group(loop)
            .channel(EventLoops.socketChannel())
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            // resolved at each connect, so a changed DNS name is followed
            .remoteAddress(InetSocketAddress.createUnresolved(host, port));
    this.pool = new SimpleChannelPool(bootstrap, new PoolHandler(), ChannelHealthChecker.ACTIVE, true, true);
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
    HttpHeaders template = new DefaultHttpHeaders();
    template.set(HttpHeaderNames.HOST, hostHeader);
    headers.forEach(template::set);
    return (contentType, body, answer) -> post(target, template, contentType, body, answer);
  }

  /** Connections opened so far (a pool that keeps them alive opens about as many as requests in flight). */
  long connectionsOpened() {
    return connectionsOpened.get();
  }

  /** Connections open now. */
  int openConnections() {
    return open.size();
  }

  private void post(String target, HttpHeaders template, String contentType, RequestBody body, Answer answer) {
    if (closed) {
      body.release();
      answer.failed(new IOException("The HTTP transport of " + settings.name() + " is closed."));
      return;
    }
    HttpHeaders headers = template.copy();
    headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length());
    DefaultFullHttpRequest request = new DefaultFullHttpRequest(
        HttpVersion.HTTP_1_1, HttpMethod.POST, target, new BodyBuf(body), headers, EmptyHttpHeaders.INSTANCE);
    if (loop.inEventLoop()) {
      send(request, answer);
    } else {
      loop.execute(() -> send(request, answer));
    }
  }

  /** On {@link #loop}: a connection from the pool, then the request on it. */
  private void send(DefaultFullHttpRequest request, Answer answer) {
    Future<Channel> acquired = pool.acquire();
    if (acquired.isDone()) {
      acquired(acquired, request, answer);
    } else {
      acquired.addListener(f -> acquired(acquired, request, answer));
    }
  }

  private void acquired(Future<Channel> acquired, DefaultFullHttpRequest request, Answer answer) {
    if (!acquired.isSuccess()) {
      request.release();
      answer.failed(connectFailure(acquired.cause()));
      return;
    }
    Channel ch = acquired.getNow();
    Exchange exchange = ch.pipeline().get(Exchange.class);
    if (ch.eventLoop().inEventLoop()) {
      exchange.start(request, answer);
    } else {
      ch.eventLoop().execute(() -> exchange.start(request, answer));
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
    for (Channel ch : open) {
      ch.close();
    }
    EventLoops.release();
  }

  @Override
  public String toString() {
    return "NettyTransport{" + settings.base().getScheme() + "://" + hostHeader + ", " + settings.name() + "}";
  }

  /** Sets up each new connection: TLS for https, the HTTP codec, whole answers, the exchange. */
  private final class PoolHandler extends AbstractChannelPoolHandler {
    @Override
    public void channelCreated(Channel ch) {
      connectionsOpened.incrementAndGet();
      open.add(ch);
      ch.closeFuture().addListener(f -> open.remove(ch));
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
      ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_ANSWER_BYTES), new Exchange(ch));
    }
  }

  /**
   * The request on one connection, if any, and its answer: every method runs on the connection's
   * event loop, so the state needs no lock.
   */
  private final class Exchange extends ChannelInboundHandlerAdapter {
    private final Channel ch;
    private final ChannelFutureListener written = f -> {
      if (!f.isSuccess()) {
        fail(ioError("The request could not be written", f.cause()), true);
      }
    };
    private Answer answer;
    private ScheduledFuture<?> timeout;

    Exchange(Channel ch) {
      this.ch = ch;
    }

    void start(DefaultFullHttpRequest request, Answer answer) {
      if (!ch.isActive() || this.answer != null) {
        request.release();
        pool.release(ch);
        answer.failed(new IOException("The connection to " + settings.name() + " closed before the request was sent."));
        return;
      }
      this.answer = answer;
      this.timeout = ch.eventLoop().schedule(this::timedOut, requestTimeoutNanos, TimeUnit.NANOSECONDS);
      ch.writeAndFlush(request).addListener(written);
    }

    private void timedOut() {
      fail(new HttpTimeoutException("No answer from " + settings.name() + " within "
          + settings.requestTimeout().toMillis() + " ms."), true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (!(msg instanceof FullHttpResponse response)) {
          return;
        }
        if (answer == null) {
          // an answer nobody asked for, or one after the timeout: this connection is out of step
          ch.close();
          return;
        }
        if (response.decoderResult().isFailure()) {
          fail(ioError("The answer is not valid HTTP", response.decoderResult().cause()), true);
          return;
        }
        int status = response.status().code();
        if (status >= 100 && status < 200) {
          return; // an interim answer; the final one follows
        }
        ByteBuf content = response.content();
        byte[] body = content.isReadable() ? ByteBufUtil.getBytes(content) : EMPTY;
        boolean keepAlive = HttpUtil.isKeepAlive(response);
        Answer a = finish();
        if (!keepAlive) {
          ch.close();
        }
        pool.release(ch);
        call(a, status, body);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
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

    private Answer finish() {
      Answer a = answer;
      answer = null;
      if (timeout != null) {
        timeout.cancel(false);
        timeout = null;
      }
      return a;
    }

    private void fail(IOException error, boolean close) {
      if (answer == null) {
        return;
      }
      Answer a = finish();
      if (close) {
        ch.close();
      }
      pool.release(ch);
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

  private static final byte[] EMPTY = new byte[0];

  /** A request body's array as a buffer, handed back to its owner when Netty releases it. */
  private static final class BodyBuf extends UnpooledHeapByteBuf {
    private final RequestBody body;

    BodyBuf(RequestBody body) {
      super(UnpooledByteBufAllocator.DEFAULT, body.array(), body.array().length);
      this.body = body;
      writerIndex(body.length());
    }

    @Override
    protected void freeArray(byte[] array) {
      body.release();
    }
  }
}
