package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
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
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An https server on 127.0.0.1 whose certificate (for IP 127.0.0.1) is signed by a CA made here
 * with the JDK's keytool, answering like each backend on success: Loki push 204, Elasticsearch
 * {@code _bulk} 200 with one created item per document, Splunk HEC event 200 Success, anything
 * else 200 {@code {}}.
 */
public final class TlsTestServer implements AutoCloseable {

  private static final String PASS = "changeit";

  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final Channel server;
  private final Path caPem;
  private final AtomicInteger requests = new AtomicInteger();

  /** Makes the CA and the server's key pair under {@code dir} and starts serving. */
  public TlsTestServer(Path dir) throws Exception {
    Path ca = dir.resolve("ca.p12");
    Path srv = dir.resolve("server.p12");
    caPem = dir.resolve("ca.pem");
    keytool("-genkeypair", "-alias", "ca", "-dname", "CN=logbench test CA", "-keyalg", "EC", "-groupname", "secp256r1",
        "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString(), "-storepass", PASS, "-storetype", "PKCS12");
    keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASS, "-file", caPem.toString());
    keytool("-genkeypair", "-alias", "server", "-dname", "CN=127.0.0.1", "-keyalg", "EC", "-groupname", "secp256r1",
        "-validity", "2", "-keystore", srv.toString(), "-storepass", PASS, "-storetype", "PKCS12");
    keytool("-certreq", "-alias", "server", "-keystore", srv.toString(), "-storepass", PASS,
        "-file", dir.resolve("server.csr").toString());
    keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASS, "-rfc", "-validity", "2",
        "-ext", "san=ip:127.0.0.1", "-infile", dir.resolve("server.csr").toString(),
        "-outfile", dir.resolve("server.pem").toString());
    keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem.toString(), "-keystore", srv.toString(),
        "-storepass", PASS);
    keytool("-importcert", "-alias", "server", "-file", dir.resolve("server.pem").toString(),
        "-keystore", srv.toString(), "-storepass", PASS);

    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(srv.toFile())) {
      ks.load(in, PASS.toCharArray());
    }
    PrivateKey key = (PrivateKey) ks.getKey("server", PASS.toCharArray());
    Certificate[] chain = ks.getCertificateChain("server");
    X509Certificate[] x509 = Arrays.copyOf(chain, chain.length, X509Certificate[].class);
    SslContext ssl = SslContextBuilder.forServer(key, x509).build();
    server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(ssl.newHandler(ch.alloc()), new HttpServerCodec(), new HttpObjectAggregator(1 << 24),
                new Answers());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  /** The server's https base URL. */
  public URI url() {
    return URI.create("https://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());
  }

  /** The CA certificate (PEM) that signed the server's. */
  public Path caPem() {
    return caPem;
  }

  /** Requests answered so far. */
  public int requests() {
    return requests.get();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static void keytool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("keytool ended").isTrue();
    assertThat(p.exitValue()).as("keytool %s: %s", args[0], out).isZero();
  }

  private final class Answers extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      requests.incrementAndGet();
      String uri = req.uri();
      HttpResponseStatus status = uri.startsWith("/loki/api/v1/push") ? HttpResponseStatus.NO_CONTENT : HttpResponseStatus.OK;
      String body;
      if (uri.startsWith("/_bulk")) {
        int docs = (int) req.content().toString(StandardCharsets.UTF_8).chars().filter(c -> c == '\n').count() / 2;
        StringBuilder b = new StringBuilder("{\"errors\":false,\"items\":[");
        for (int d = 0; d < docs; d++) {
          b.append(d == 0 ? "" : ",").append("{\"create\":{\"status\":201}}");
        }
        body = b.append("]}").toString();
      } else if (uri.startsWith("/services/collector/event")) {
        body = "{\"text\":\"Success\",\"code\":0}";
      } else {
        body = status == HttpResponseStatus.NO_CONTENT ? "" : "{}";
      }
      ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
      var res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
      HttpUtil.setContentLength(res, content.readableBytes());
      ctx.writeAndFlush(res);
    }
  }
}
