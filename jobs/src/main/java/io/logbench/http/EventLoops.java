package io.logbench.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
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
 *
 * <p>Transport: Netty's native epoll transport on Linux (x86-64) where it loads, else Java's NIO;
 * {@code logbench.http.transport=nio} (system property) asks for NIO. A request costs the I/O
 * thread fewer system calls and less garbage on epoll (docs/benchmarks.md, eighth round).
 */
public final class EventLoops {

  /** Volatile for {@link #current}, which reads it without the lock. */
  private static volatile EventLoopGroup group;
  private static int users;
  /** Whether the group runs on epoll; decided at the first {@link #acquire} (null before). */
  private static Boolean epoll;

  private EventLoops() {}

  /** The shared group; pair each call with one {@link #release}. */
  public static synchronized EventLoopGroup acquire() {
    if (group == null) {
      DefaultThreadFactory factory = new DefaultThreadFactory("logbench-http", true);
      if (epoll == null) {
        epoll = epollWanted();
      }
      group = epoll ? new EpollEventLoopGroup(threads(), factory) : new NioEventLoopGroup(threads(), factory);
    }
    users++;
    return group;
  }

  /**
   * The shared group's I/O thread the caller runs on, as an executor for timers of its own (a
   * task scheduled on it from that thread wakes no other thread); null on any other thread.
   */
  public static EventExecutor current() {
    EventLoopGroup g = group;
    // the executor Netty records for its own threads: a thread-local read, where walking the
    // group's executors cost an iterator and a check each, per answer (docs/benchmarks.md,
    // twentieth round)
    EventExecutor e = ThreadExecutorMap.currentExecutor();
    return g != null && e != null && e.parent() == g && e.inEventLoop() ? e : null;
  }

  /** Gives the group back; the last user's release shuts its threads down. */
  public static synchronized void release() {
    if (--users == 0) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
      group = null;
    }
  }

  /** The TCP channel class for the group {@link #acquire} gives. */
  public static synchronized Class<? extends SocketChannel> socketChannel() {
    return Boolean.TRUE.equals(epoll) ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /** The UDP channel class for the group {@link #acquire} gives. */
  public static synchronized Class<? extends DatagramChannel> datagramChannel() {
    return Boolean.TRUE.equals(epoll) ? EpollDatagramChannel.class : NioDatagramChannel.class;
  }

  /** "epoll" or "nio": the transport the group runs on ("nio" before the first {@link #acquire}). */
  public static synchronized String transport() {
    return Boolean.TRUE.equals(epoll) ? "epoll" : "nio";
  }

  static boolean epollWanted() {
    String configured = System.getProperty("logbench.http.transport");
    if (configured != null && !configured.isBlank()) {
      switch (configured.trim().toLowerCase(java.util.Locale.ROOT)) {
        case "nio":
          return false;
        case "epoll":
        case "auto":
          break;
        default:
          throw new IllegalArgumentException("The system property logbench.http.transport is '" + configured
              + "'; expected auto, epoll or nio.");
      }
    }
    return Epoll.isAvailable();
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
