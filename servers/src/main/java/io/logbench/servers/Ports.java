package io.logbench.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for the servers' listeners. */
public final class Ports {

  private Ports() {}

  /**
   * A port free on 127.0.0.1 now. Another process may take it before the server binds it; the
   * server's start then fails with the address in use, which names the port.
   */
  public static int free() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free port on 127.0.0.1: " + e.getMessage(), e);
    }
  }
}
