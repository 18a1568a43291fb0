package io.logbench.sink.syslog;

import io.logbench.dataset.LineBatch;
import io.logbench.http.EventLoops;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.syslog.internal.Rfc5424Encoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * Sends batches as syslog over one connection on the JVM's shared Netty I/O threads ({@link
 * EventLoops}): no thread per request and no blocking call per line. TCP: each batch one write of
 * octet-counted messages; a batch is acknowledged once the kernel took all of it (syslog has no
 * answer of its own, so a connection that breaks after that loses what the receiver had not read,
 * which the count shows), and a write or connect that fails is retryable ({@code io}), on a new
 * connection. UDP: one datagram per line, flushed once per batch; a batch is acknowledged when
 * every datagram was handed to the kernel, which is all UDP can say.
 */
final class SyslogSender implements BatchSender {

  private final SyslogBackend spec;
  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final Rfc5424Encoder encoder;
  private ChannelFuture connection;

  SyslogSender(SyslogBackend spec) {
    this.spec = spec;
    this.address = new InetSocketAddress(spec.host(), spec.port());
    this.encoder = new Rfc5424Encoder(spec.priority(), spec.hostname(), spec.appName());
    this.group = EventLoops.acquire();
  }

  /** The open connection (or datagram channel), opened again after a failure. */
  private ChannelFuture connection() {
    if (connection == null || (connection.isDone() && (!connection.isSuccess() || !connection.channel().isActive()))) {
      Bootstrap b = new Bootstrap().group(group).handler(new ChannelInitializer<Channel>() {
        @Override
        protected void initChannel(Channel ch) {}
      });
      if (spec.transport() == SyslogBackend.Transport.TCP) {
        connection = b.channel(EventLoops.socketChannel())
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, spec.timeout().toMillis()))
            .option(ChannelOption.TCP_NODELAY, true).connect(address);
      } else {
        connection = b.channel(EventLoops.datagramChannel()).bind(new InetSocketAddress("127.0.0.1".equals(spec.host())
            ? "127.0.0.1" : "0.0.0.0", 0));
      }
    }
    return connection;
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    CompletableFuture<SendResult> result = new CompletableFuture<>();
    int lines = batch.count();
    ChannelFuture c = connection();
    if (spec.transport() == SyslogBackend.Transport.TCP) {
      ByteBuf body = c.channel().alloc().buffer(batch.byteSize() + lines * 64);
      encoder.octetCounted(batch, body);
      c.addListener(f -> {
        if (!f.isSuccess()) {
          body.release();
          result.complete(failed(lines, "connect", f.cause()));
          return;
        }
        c.channel().writeAndFlush(body).addListener(w -> result.complete(w.isSuccess()
            ? SendResult.accepted(lines, 0) : failed(lines, "write", w.cause())));
      });
    } else {
      DatagramPacket[] packets = new DatagramPacket[lines];
      for (int k = 0; k < lines; k++) {
        ByteBuf m = c.channel().alloc().buffer(encoder.length(batch, k));
        encoder.message(batch, k, m);
        packets[k] = new DatagramPacket(m, address);
      }
      c.addListener(f -> {
        if (!f.isSuccess()) {
          for (DatagramPacket p : packets) {
            p.release();
          }
          result.complete(failed(lines, "bind", f.cause()));
          return;
        }
        Channel ch = c.channel();
        int[] left = {lines};
        boolean[] failed = {false};
        for (DatagramPacket p : packets) {
          ch.write(p).addListener(w -> {
            failed[0] |= !w.isSuccess();
            if (--left[0] == 0) { // listeners run on the channel's one I/O thread
              result.complete(failed[0] ? failed(lines, "send", w.cause()) : SendResult.accepted(lines, 0));
            }
          });
        }
        ch.flush();
      });
    }
    return result;
  }

  private SendResult failed(int lines, String what, Throwable cause) {
    return SendResult.retryable(lines, 0, "io: syslog " + what + " to " + address + " failed"
        + (cause == null ? "" : ": " + cause.getMessage()));
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.channel().close().syncUninterruptibly();
    }
    EventLoops.release();
  }
}
