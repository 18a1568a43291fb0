package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shared I/O threads' transport: epoll where it loads, NIO when asked or elsewhere. */
class EventLoopsTest {

  @AfterEach
  void clear() {
    System.clearProperty("logbench.http.transport");
  }

  @Test
  void epollWhereItLoadsUnlessNioIsAsked() {
    assertThat(EventLoops.epollWanted()).isEqualTo(Epoll.isAvailable());
    System.setProperty("logbench.http.transport", "nio");
    assertThat(EventLoops.epollWanted()).isFalse();
    System.setProperty("logbench.http.transport", " Auto ");
    assertThat(EventLoops.epollWanted()).isEqualTo(Epoll.isAvailable());
  }

  @Test
  void aWrongTransportNamesThePropertyAndTheChoices() {
    System.setProperty("logbench.http.transport", "kqueue");
    assertThatThrownBy(EventLoops::epollWanted)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("logbench.http.transport is 'kqueue'")
        .hasMessageContaining("auto, epoll or nio");
  }

  @Test
  void theChannelClassesMatchTheGroupsTransport() {
    EventLoops.acquire();
    try {
      assertThat(EventLoops.socketChannel())
          .isEqualTo("epoll".equals(EventLoops.transport()) ? EpollSocketChannel.class : NioSocketChannel.class);
      // the jar carries the x86-64 library: on this machine kind the group runs on epoll
      if ("amd64".equals(System.getProperty("os.arch")) && System.getProperty("os.name").startsWith("Linux")) {
        assertThat(EventLoops.transport()).isEqualTo("epoll");
      }
    } finally {
      EventLoops.release();
    }
  }

  /** {@link EventLoops#current} is the shared group's executor on its own thread, and null elsewhere. */
  @Test
  void currentIsTheGroupsExecutorOnItsThreadOnly() throws Exception {
    io.netty.channel.EventLoopGroup group = EventLoops.acquire();
    io.netty.channel.nio.NioEventLoopGroup other = new io.netty.channel.nio.NioEventLoopGroup(1);
    try {
      assertThat(EventLoops.current()).isNull();
      for (io.netty.util.concurrent.EventExecutor e : group) {
        assertThat(currentOn(e)).isSameAs(e);
      }
      // another group's thread is not one of the shared group's
      assertThat(currentOn(other.next())).isNull();
    } finally {
      other.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
      EventLoops.release();
    }
  }

  private static io.netty.util.concurrent.EventExecutor currentOn(io.netty.util.concurrent.EventExecutor thread) throws Exception {
    java.util.concurrent.Callable<io.netty.util.concurrent.EventExecutor> current = EventLoops::current;
    return thread.submit(current).get(10, java.util.concurrent.TimeUnit.SECONDS);
  }
}
