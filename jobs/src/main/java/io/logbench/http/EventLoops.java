package io.logbench.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The I/O threads every {@link NettyTransport} (and the syslog write) of a JVM shares: one group, created by the first
 * transport that opens and shut down when the last one closes, so a task manager running many
 * tasks and backends still has a handful of HTTP threads, not one per sender or per request.
 *
 * <p>Threads: {@code logbench.http.threads} (system property) or half the processors, at least 2
 * and at most 4: one thread moves hundreds of megabytes a second, but a second one keeps a
 * backend's answers moving while another's large bulk answer is parsed, and on a crowded machine
 * one thread's share of the CPU is not enough for every backend's tasks.
 */
public final class EventLoops {

  private static EventLoopGroup group;
  private static int users;

  private EventLoops() {}

  /** The shared group; pair each call with one {@link #release}. */
  public static synchronized EventLoopGroup acquire() {
    if (group == null) {
      group = new NioEventLoopGroup(threads(), new DefaultThreadFactory("logbench-http", true));
    }
    users++;
    return group;
  }

  /** Gives the group back; the last user's release shuts its threads down. */
  public static synchronized void release() {
    if (--users == 0) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
      group = null;
    }
  }

  static int threads() {
    String configured = System.getProperty("logbench.http.threads");
    if (configured != null) {
      try {
        int n = Integer.parseInt(configured.trim());
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException ignored) {
        // fall through to the error below
      }
      throw new IllegalArgumentException(
          "The system property logbench.http.threads is '" + configured + "'; expected a whole number of at least 1.");
    }
    return Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
  }
}
