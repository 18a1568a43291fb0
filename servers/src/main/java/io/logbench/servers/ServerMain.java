package io.logbench.servers;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code java -cp logbench-servers.jar io.logbench.servers.ServerMain kafka|opensearch [--port N]
 * [--dir DIR] [--watch-stdin]}: starts one server on 127.0.0.1 (a free port unless given), prints
 * one line {@value #READY} {@code <server> <address>} on standard output once it answers, and runs
 * until it is stopped: SIGTERM (or Ctrl-C), or with {@code --watch-stdin} the end of its standard
 * input, so a parent that dies takes its servers with it. Without {@code --dir} the data goes to a
 * temporary directory that is deleted on stop. Exit codes: 0 stopped, 1 the server did not start,
 * 2 wrong arguments.
 */
public final class ServerMain {

  /** The start of the line printed once the server answers: then its name and address. */
  public static final String READY = "logbench-server ready";
  /** The server names, as given on the command line. */
  public static final String KAFKA = "kafka";
  public static final String OPENSEARCH = "opensearch";

  private ServerMain() {}

  public static void main(String[] args) throws Exception {
    String server = null;
    int port = 0;
    Path dir = null;
    boolean watchStdin = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--port" -> port = port(value(args, ++i, a));
        case "--dir" -> dir = Path.of(value(args, ++i, a));
        case "--watch-stdin" -> watchStdin = true;
        default -> {
          if (server != null || a.startsWith("-")) {
            usage("unexpected argument '" + a + "'");
          }
          server = a.toLowerCase(Locale.ROOT);
        }
      }
    }
    if (!KAFKA.equals(server) && !OPENSEARCH.equals(server)) {
      usage(server == null ? "no server named" : "unknown server '" + server + "'");
    }
    boolean temporary = dir == null;
    Path data = temporary ? Files.createTempDirectory("logbench-" + server + "-") : dir;
    Files.createDirectories(data);
    AutoCloseable running;
    String address;
    try {
      if (KAFKA.equals(server)) {
        KafkaNode node = KafkaNode.start(data, port);
        running = node;
        address = node.bootstrap();
      } else {
        OpenSearchNode node = OpenSearchNode.start(data, port);
        running = node;
        address = node.url();
      }
    } catch (Exception e) {
      System.err.println("logbench-server: " + server + " did not start: " + e);
      for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
        System.err.println("  caused by: " + c);
      }
      if (temporary) {
        delete(data);
      }
      System.exit(1);
      return;
    }
    String name = server;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        running.close();
      } catch (Exception e) {
        System.err.println("logbench-server: stopping " + name + " failed: " + e);
      }
      if (temporary) {
        delete(data);
      }
      System.out.println("logbench-server stopped " + name);
      System.out.flush();
    }, "logbench-server-stop"));
    System.out.println(READY + " " + server + " " + address);
    System.out.flush();
    if (watchStdin) {
      // reads until the parent closes the pipe (or dies); then the shutdown hook stops the server
      InputStream in = System.in;
      byte[] buffer = new byte[256];
      try {
        while (in.read(buffer) >= 0) {
          // input is ignored; only its end matters
        }
      } catch (IOException e) {
        // a broken pipe is an end too
      }
      System.exit(0);
    }
    // not every server thread keeps a JVM alive (OpenSearch's are daemons): wait for SIGTERM
    new java.util.concurrent.CountDownLatch(1).await();
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      usage(option + " needs a value");
    }
    return args[i];
  }

  private static int port(String value) {
    try {
      int p = Integer.parseInt(value);
      if (p >= 0 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    usage("--port " + value + " is not valid; expected a port from 0 (any free one) to 65535");
    return 0;
  }

  private static void usage(String problem) {
    System.err.println("logbench-server: " + problem + ".");
    System.err.println("Usage: java -cp logbench-servers.jar io.logbench.servers.ServerMain kafka|opensearch"
        + " [--port N] [--dir DIR] [--watch-stdin]");
    System.exit(2);
  }

  static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }
}
