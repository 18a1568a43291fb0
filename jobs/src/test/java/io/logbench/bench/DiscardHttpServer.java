package io.logbench.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The push benchmark's receiving end, run in its own JVM so its CPU is not logbench's: reads and
 * discards every request body and answers as each backend does on success, by path: Loki push
 * 204; VictoriaLogs jsonline 200; Elasticsearch {@code _bulk} 200 with one {@code create} item
 * (status 201) per document and {@code "errors":false}; Splunk HEC event 200 {@code
 * {"text":"Success","code":0}}; anything else (index creation, count queries) 200 {@code {}}.
 *
 * <p>Usage: {@code DiscardHttpServer PORT_FILE RATE_FILE}: binds 127.0.0.1 on a free port, writes
 * the port to PORT_FILE, and serves until killed, with one I/O thread; every second that had
 * requests it appends {@code <epoch second> <requests>} to RATE_FILE, so a benchmark knows when
 * a run's requests came and how many.
 */
public final class DiscardHttpServer {

  private static final byte[] HEC_OK = "{\"text\":\"Success\",\"code\":0}".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BULK_HEAD = "{\"took\":1,\"errors\":false,\"items\":[".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BULK_ITEM = "{\"create\":{\"_index\":\"logbench\",\"status\":201}}".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EMPTY_JSON = "{}".getBytes(StandardCharsets.US_ASCII);

  private static final AtomicLong REQUESTS = new AtomicLong();

  private DiscardHttpServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: DiscardHttpServer PORT_FILE RATE_FILE");
      System.exit(2);
    }
    EventLoopGroup group = new NioEventLoopGroup(1);
    Channel server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(256 << 20), new Answer());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    int port = ((InetSocketAddress) server.localAddress()).getPort();
    java.nio.file.Path portFile = java.nio.file.Path.of(args[0]);
    java.nio.file.Files.writeString(portFile.resolveSibling(portFile.getFileName() + ".tmp"), Integer.toString(port));
    java.nio.file.Files.move(portFile.resolveSibling(portFile.getFileName() + ".tmp"), portFile,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    java.io.PrintWriter rates = new java.io.PrintWriter(
        java.nio.file.Files.newBufferedWriter(java.nio.file.Path.of(args[1])), true);
    long[] last = {0};
    group.scheduleAtFixedRate(() -> {
      long n = REQUESTS.get();
      if (n != last[0]) {
        rates.println(System.currentTimeMillis() / 1000 - 1 + " " + (n - last[0]));
        last[0] = n;
      }
    }, 1000 - System.currentTimeMillis() % 1000, 1000, java.util.concurrent.TimeUnit.MILLISECONDS);
    Runtime.getRuntime().addShutdownHook(new Thread(() ->
        System.err.println("discard server: " + REQUESTS.get() + " requests")));
    server.closeFuture().sync();
  }

  /** Answers one request as its backend would. */
  private static final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      REQUESTS.incrementAndGet();
      String uri = req.uri();
      FullHttpResponse res;
      if (uri.startsWith("/loki/api/v1/push")) {
        res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT);
      } else if (uri.startsWith("/_bulk")) {
        res = json(bulk(req.content()));
      } else if (uri.startsWith("/services/collector/event")) {
        res = json(Unpooled.wrappedBuffer(HEC_OK));
      } else if (uri.startsWith("/insert/jsonline")) {
        res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      } else {
        res = json(Unpooled.wrappedBuffer(EMPTY_JSON));
      }
      HttpUtil.setContentLength(res, res.content().readableBytes());
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      HttpUtil.setKeepAlive(res, keepAlive);
      var f = ctx.writeAndFlush(res);
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }

    private static FullHttpResponse json(ByteBuf body) {
      FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
      res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
      return res;
    }

    /** One created item per document: a bulk body has two lines (action, source) per document. */
    private static ByteBuf bulk(ByteBuf body) {
      int newlines = 0;
      for (int i = body.readerIndex(); i < body.writerIndex(); i++) {
        if (body.getByte(i) == '\n') {
          newlines++;
        }
      }
      int docs = newlines / 2;
      ByteBuf out = Unpooled.buffer(BULK_HEAD.length + docs * (BULK_ITEM.length + 1) + 2);
      out.writeBytes(BULK_HEAD);
      for (int d = 0; d < docs; d++) {
        if (d > 0) {
          out.writeByte(',');
        }
        out.writeBytes(BULK_ITEM);
      }
      out.writeBytes("]}".getBytes(StandardCharsets.US_ASCII));
      return out;
    }
  }
}
