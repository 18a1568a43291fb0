package io.logbench.sink.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of a real server (OpenSearch) that can take it off the network
 * for a while, as an outage of the server's HTTP interface looks to a client: {@link
 * Mode#BLACKHOLE} accepts connections and swallows what they send without an answer (the client
 * times out), {@link Mode#RESET} accepts and resets each connection at once (an I/O error);
 * switching to either drops the connections open so far, so pooled keep-alive connections fail
 * too. {@link Mode#UP} forwards bytes both ways unchanged. Test code: a thread per connection.
 */
public final class OutageProxy implements AutoCloseable {

  /** What the proxy does with connections. */
  public enum Mode { UP, BLACKHOLE, RESET }

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong refused = new AtomicLong();
  private volatile Mode mode = Mode.UP;

  /** A proxy to {@code 127.0.0.1:targetPort}, forwarding until told otherwise. */
  public OutageProxy(int targetPort) throws IOException {
    this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "outage-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  /** {@code http://127.0.0.1:<port>} of the proxy. */
  public String url() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** Connections blackholed or reset so far. */
  public long refused() {
    return refused.get();
  }

  /** Switches the mode; leaving {@link Mode#UP} drops every connection open so far. */
  public void mode(Mode m) {
    this.mode = m;
    if (m != Mode.UP) {
      for (Socket s : open) {
        reset(s);
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Mode m = mode;
      if (m == Mode.RESET) {
        refused.incrementAndGet();
        reset(client);
        continue;
      }
      open.add(client);
      if (m == Mode.BLACKHOLE) {
        refused.incrementAndGet();
        start("outage-proxy-blackhole", () -> drain(client));
        continue;
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(target, 5_000);
        open.add(upstream);
        start("outage-proxy-up", () -> pump(client, upstream));
        start("outage-proxy-down", () -> pump(upstream, client));
      } catch (IOException e) {
        reset(client);
      }
    }
  }

  private static void start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  /** Reads and drops what a blackholed connection sends until it is closed. */
  private void drain(Socket s) {
    try (InputStream in = s.getInputStream()) {
      byte[] buf = new byte[16 * 1024];
      while (in.read(buf) >= 0) {
        // no answer, ever
      }
    } catch (IOException e) {
      // reset by the proxy or closed by the client
    } finally {
      open.remove(s);
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException e) {
      reset(from);
      reset(to);
    } finally {
      open.remove(from);
    }
  }

  /** Closes with a TCP reset (linger 0), as a crashed server's host answers. */
  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0);
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      reset(s);
    }
  }
}
