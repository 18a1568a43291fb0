package io.logbench.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.elasticsearch.ElasticsearchSender;
import io.logbench.sink.loki.LokiBackend;
import io.logbench.sink.splunk.SplunkSender;
import io.logbench.sink.victorialogs.VictoriaLogsBackend;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Lines per CPU-second each backend format's sender encodes and sends to a local endpoint that
 * reads and discards every body and gives the protocol's success answer. The CPU time is the whole
 * process's, so it includes the discarding server's share (reported apart as far as its handler
 * threads measure it), the JIT and the GC. Run it with {@code deploy/bench/send.sh [batches]
 * [in-flight] [lines-per-batch]}.
 */
public final class SendBench {

  static final int BATCHES = EncodeBenchmark.BATCHES;
  static final List<String> FORMATS =
      List.of("loki-json", "loki-protobuf", "victorialogs-jsonline", "elasticsearch-bulk", "splunk-hec");

  private SendBench() {}

  public static void main(String[] args) throws Exception {
    // Without it the server writes headers and body in two segments and a 200 with a body waits
    // for the client's delayed ACK (about 40 ms), so ES and HEC would measure the kernel timer.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    int batches = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    int inFlight = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int batchLines = args.length > 2 ? Integer.parseInt(args[2]) : EncodeBenchmark.BATCH_LINES;
    int warmup = Math.max(batches / 2, 200);
    AppJsonDataset dataset = AppJsonDataset.builder().seed(0).lines((long) batchLines * BATCHES).build();
    LineBatch[] pool = EncodeBenchmark.batches(dataset, BATCHES, batchLines);
    DiscardServer server = DiscardServer.start(inFlight);
    Map<String, BatchSender> senders = new java.util.LinkedHashMap<>();
    try {
      for (String format : FORMATS) {
        senders.put(format, open(format, server.url(), dataset.streams()));
      }
      // A warm-up round over every format first: the formats share the HTTP client's code, so
      // warming each just before its measurement would favour the later ones.
      for (BatchSender sender : senders.values()) {
        run(sender, pool, warmup, inFlight);
      }
      System.out.printf(
          "%d batches of %d lines per format after a round of %d warm-up batches per format, up to"
              + " %d in flight, to %s%n%n",
          batches, batchLines, warmup, inFlight, server.url());
      System.out.println(
          "| format | lines/s (wall) | lines per process CPU-second | process CPU ns a line"
              + " | server handler CPU ns a line | body bytes a line |");
      System.out.println("|---|---:|---:|---:|---:|---:|");
      for (String format : FORMATS) {
        Measured m = measure(senders.get(format), pool, batches, inFlight, server);
        long lines = (long) batches * batchLines;
        System.out.printf(
            "| %s | %,.0f | %,.0f | %,.0f | %,.0f | %.1f |%n",
            format,
            lines / (m.wallNanos / 1e9),
            lines / (m.cpuNanos / 1e9),
            (double) m.cpuNanos / lines,
            (double) m.serverCpuNanos / lines,
            (double) m.bodyBytes / lines);
      }
    } finally {
      senders.values().forEach(BatchSender::close);
      server.stop();
    }
  }

  /** A sender of {@code format} to the discarding server at {@code url}. */
  static BatchSender open(String format, String url, StreamCatalog streams) {
    Duration timeout = Duration.ofSeconds(10);
    switch (format) {
      case "loki-json":
        return new LokiBackend("loki", URI.create(url), LokiBackend.Format.JSON, null, Map.of(), null,
                timeout, timeout)
            .open(RunContext.of(streams));
      case "loki-protobuf":
        return new LokiBackend("loki", URI.create(url), LokiBackend.Format.PROTOBUF, null, Map.of(),
                null, timeout, timeout)
            .open(RunContext.of(streams));
      case "victorialogs-jsonline":
        return new VictoriaLogsBackend("victorialogs", URI.create(url), null, null, null,
                VictoriaLogsBackend.DEFAULT_RETENTION, null, timeout, timeout)
            .open(RunContext.of(streams));
      case "elasticsearch-bulk":
        return ElasticsearchSender.builder().url(url).index("logbench").streams(streams).build();
      case "splunk-hec":
        return SplunkSender.builder().url(url).token("bench-token").streams(streams).build();
      default:
        throw new IllegalArgumentException("Unknown format for the benchmark: " + format + ".");
    }
  }

  record Measured(long wallNanos, long cpuNanos, long serverCpuNanos, long bodyBytes) {}

  static Measured measure(
      BatchSender sender, LineBatch[] pool, int batches, int inFlight, DiscardServer server)
      throws InterruptedException {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Map<String, Long> threads0 = threadCpu();
    long gc0 = gcMillis();
    long jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    long serverCpu0 = server.handlerCpuNanos.sum();
    long bytes0 = server.bodyBytes.sum();
    long cpu0 = os.getProcessCpuTime();
    long wall0 = System.nanoTime();
    run(sender, pool, batches, inFlight);
    long wall = System.nanoTime() - wall0;
    long cpu = os.getProcessCpuTime() - cpu0;
    Map<String, Long> threads1 = threadCpu();
    threads1.replaceAll((name, nanos) -> nanos - threads0.getOrDefault(name, 0L));
    StringBuilder split = new StringBuilder("  CPU ms by thread kind:");
    threads1.entrySet().stream()
        .filter(e -> e.getValue() >= 5_000_000L)
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .forEach(e -> split.append(' ').append(e.getKey()).append('=').append(e.getValue() / 1_000_000));
    split.append("; GC ms (wall, all collectors)=").append(gcMillis() - gc0)
        .append(" JIT compile ms=")
        .append(ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit0);
    System.err.println(split);
    return new Measured(
        wall, cpu, server.handlerCpuNanos.sum() - serverCpu0, server.bodyBytes.sum() - bytes0);
  }

  static long gcMillis() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionTime)
        .sum();
  }

  /** CPU nanoseconds of the live threads so far, summed by name with the digits left out. */
  static Map<String, Long> threadCpu() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Map<String, Long> out = new java.util.TreeMap<>();
    for (java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (t != null) {
        long nanos = mx.getThreadCpuTime(t.getThreadId());
        if (nanos > 0) {
          out.merge(t.getThreadName().replaceAll("[0-9]+", "N"), nanos, Long::sum);
        }
      }
    }
    return out;
  }

  /** Sends {@code batches} batches with at most {@code inFlight} unanswered; fails on any non-accept. */
  static void run(BatchSender sender, LineBatch[] pool, int batches, int inFlight)
      throws InterruptedException {
    Semaphore slots = new Semaphore(inFlight);
    AtomicReference<String> failure = new AtomicReference<>();
    for (int b = 0; b < batches && failure.get() == null; b++) {
      slots.acquire();
      LineBatch batch = pool[b % pool.length];
      sender
          .send(batch)
          .whenComplete(
              (r, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, "The send failed: " + e);
                } else if (r.kind() != SendResult.Kind.ACCEPTED || r.accepted() != batch.count()) {
                  failure.compareAndSet(null, "The discarding server's answer was not accepted: " + r);
                }
                slots.release();
              });
    }
    if (!slots.tryAcquire(inFlight, 60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("Sends were still unanswered after 60 s.");
    }
    if (failure.get() != null) {
      throw new IllegalStateException(failure.get());
    }
  }

  /**
   * A loopback HTTP server that reads and discards each body and answers as each backend does on
   * success: Loki 204, VictoriaLogs 200, Elasticsearch a bulk answer listing one created item per
   * action line, Splunk HEC {@code {"text":"Success","code":0}}.
   */
  static final class DiscardServer {
    private static final byte[] HEC_SUCCESS =
        "{\"text\":\"Success\",\"code\":0}".getBytes(StandardCharsets.US_ASCII);

    final LongAdder handlerCpuNanos = new LongAdder();
    final LongAdder bodyBytes = new LongAdder();
    private final Map<Integer, byte[]> bulkAnswers = new ConcurrentHashMap<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private HttpServer http;
    private ExecutorService executor;

    static DiscardServer start(int threads) throws IOException {
      DiscardServer s = new DiscardServer();
      s.http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
      s.executor = Executors.newFixedThreadPool(threads);
      s.http.setExecutor(s.executor);
      s.http.createContext("/loki/api/v1/push", ex -> s.handle(ex, "loki"));
      s.http.createContext("/insert/jsonline", ex -> s.handle(ex, "vl"));
      s.http.createContext("/_bulk", ex -> s.handle(ex, "es"));
      s.http.createContext("/services/collector/event", ex -> s.handle(ex, "hec"));
      s.http.start();
      return s;
    }

    String url() {
      return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    private void handle(HttpExchange ex, String protocol) throws IOException {
      long cpu0 = threads.getCurrentThreadCpuTime();
      try {
        long newlines = 0;
        long size = 0;
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = ex.getRequestBody()) {
          for (int n; (n = in.read(buf)) > 0; ) {
            size += n;
            if (protocol.equals("es")) {
              for (int i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                  newlines++;
                }
              }
            }
          }
        }
        bodyBytes.add(size);
        switch (protocol) {
          case "loki":
            ex.sendResponseHeaders(204, -1);
            break;
          case "vl":
            ex.sendResponseHeaders(200, -1);
            break;
          case "es":
            // Two NDJSON lines (action, document) per item, each ending in a newline.
            respond(ex, "application/json", bulkAnswers.computeIfAbsent((int) (newlines / 2), DiscardServer::bulkAnswer));
            break;
          default:
            respond(ex, "application/json", HEC_SUCCESS);
        }
      } finally {
        ex.close();
        handlerCpuNanos.add(threads.getCurrentThreadCpuTime() - cpu0);
      }
    }

    private static void respond(HttpExchange ex, String type, byte[] body) throws IOException {
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }

    static byte[] bulkAnswer(int items) {
      StringBuilder b = new StringBuilder("{\"took\":1,\"errors\":false,\"items\":[");
      for (int i = 0; i < items; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append("{\"create\":{\"_index\":\"logbench\",\"_id\":\"").append(i)
            .append("\",\"_version\":1,\"result\":\"created\",\"status\":201}}");
      }
      return b.append("]}").toString().getBytes(StandardCharsets.US_ASCII);
    }

    void stop() {
      http.stop(0);
      executor.shutdownNow();
    }
  }
}
