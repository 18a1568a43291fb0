package io.logbench.sink.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on 127.0.0.1 that accepts connections and reads nothing and answers nothing: a backend
 * that hangs. Also gives a loopback port nobody listens on: a backend that is stopped.
 */
public final class SilentServer implements AutoCloseable {

  private final ServerSocket socket;
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  public SilentServer() {
    try {
      socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  accepted.add(socket.accept());
                } catch (IOException e) {
                  return;
                }
              }
            },
            "silent-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public String url() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  /** The URL of a loopback port that was free a moment ago and has no listener. */
  public static String stoppedUrl() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
      for (Socket s : accepted) {
        s.close();
      }
    } catch (IOException e) {
      // closing a test server; nothing to do
    }
  }
}
