package io.logbench.bench;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.StreamCatalog;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.sink.RunContext;
import io.logbench.sink.elasticsearch.internal.BulkEncoder;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.loki.LokiBackend;
import io.logbench.sink.loki.internal.LokiJsonEncoder;
import io.logbench.sink.loki.internal.LokiProtoEncoder;
import io.logbench.sink.splunk.SplunkBackend;
import io.logbench.sink.splunk.internal.HecEncoder;
import io.logbench.sink.victorialogs.internal.JsonLineEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.xerial.snappy.Snappy;

/**
 * Lines per second one thread encodes into request body bytes, per backend format, from pre-made
 * 100-line app-json batches (seed 000's batch size); each call does what the format's sender does
 * before handing the body to the HTTP client, copies and compression included. Setup prints the
 * body bytes per line of each format. Run it with {@code deploy/bench/jmh.sh EncodeBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class EncodeBenchmark {

  static final int BATCH_LINES = 100;

  /** Batches the benchmark cycles through, so each call sees other lines and other seconds. */
  static final int BATCHES = 64;

  @Param({
    "loki-json", "loki-protobuf", "victorialogs-jsonline", "elasticsearch-bulk", "splunk-hec"
  })
  public String format;

  /**
   * How the batches hold their lines: {@code raw}, or {@code escaped} for a JSON string as a
   * source makes them for the JSON formats ({@code LineBatch.jsonEscaped}); loki-protobuf takes
   * raw lines only and ignores it.
   */
  @Param({"raw", "escaped"})
  public String lines;

  private LineBatch[] batches;
  private BitSet all;
  private int next;
  private Encoder encoder;

  /** One format's batch-to-body step, as its sender does it. */
  interface Encoder {
    byte[] encode(LineBatch batch, BitSet all);
  }

  @Setup(Level.Trial)
  public void setUp() {
    AppJsonDataset dataset = AppJsonDataset.builder().seed(0).lines(BATCH_LINES * BATCHES).build();
    batches = batches(dataset, BATCHES, BATCH_LINES, lines.equals("escaped") && !format.equals("loki-protobuf"));
    all = new BitSet(BATCH_LINES);
    all.set(0, BATCH_LINES);
    encoder = encoder(format, dataset.streams());
    long count = 0;
    long bytes = 0;
    long raw = 0;
    for (LineBatch b : batches) {
      count += b.count();
      raw += b.byteSize();
      bytes += encoder.encode(b, all).length;
    }
    System.out.printf(
        "%n%s, %s lines: %.1f body bytes a line (lines themselves: %.1f bytes a line)%n",
        format, lines, (double) bytes / count, (double) raw / count);
  }

  /** {@code count} consecutive batches of {@code lines} lines from line 0 of {@code dataset}. */
  static LineBatch[] batches(Dataset dataset, int count, int lines) {
    return batches(dataset, count, lines, false);
  }

  /** The same, the lines made escaped for a JSON string when {@code escaped}. */
  static LineBatch[] batches(Dataset dataset, int count, int lines, boolean escaped) {
    LineCursor cursor = dataset.cursor(0);
    LineBatch[] out = new LineBatch[count];
    for (int b = 0; b < count; b++) {
      out[b] = new LineBatch(lines, lines * 1024);
      out[b].setJsonEscaped(escaped);
      out[b].reset(b, cursor.position());
      for (int k = 0; k < lines; k++) {
        cursor.next(out[b]);
      }
    }
    return out;
  }

  /** A run id as {@code generate} makes them: every encoder stamps it, as under {@code generate}. */
  static final String RUN_ID = "bench-20261130-121314-3f2a";

  /** The encoder of {@code format} for {@code streams}, with the senders' default settings. */
  static Encoder encoder(String format, StreamCatalog streams) {
    LokiBackend loki =
        new LokiBackend("loki", URI.create("http://127.0.0.1:3100"), LokiBackend.Format.JSON, null,
            Map.of(), null, Duration.ofSeconds(10), Duration.ofSeconds(10));
    List<Map<String, String>> labels = loki.streamLabels(RunContext.of(streams).withRunId(RUN_ID));
    JsonBytes body = new JsonBytes(64 * 1024);
    switch (format) {
      case "loki-json": {
        LokiJsonEncoder json = new LokiJsonEncoder(labels, RUN_ID);
        return (batch, lines) -> {
          json.encode(batch, body);
          return Arrays.copyOf(body.array(), body.size());
        };
      }
      case "loki-protobuf": {
        LokiProtoEncoder proto = new LokiProtoEncoder(labels, RUN_ID);
        return (batch, lines) -> {
          proto.encode(batch, body);
          return snappy(body);
        };
      }
      case "victorialogs-jsonline": {
        JsonLineEncoder jsonLine = new JsonLineEncoder(streams, RUN_ID);
        return (batch, lines) -> {
          jsonLine.encode(batch, body);
          return Arrays.copyOf(body.array(), body.size());
        };
      }
      case "elasticsearch-bulk": {
        BulkEncoder bulk = new BulkEncoder("logbench", streams, RUN_ID);
        return bulk::encode;
      }
      case "splunk-hec": {
        HecEncoder hec =
            new HecEncoder(streams, null, null, SplunkBackend.DEFAULT_SOURCETYPE, null, RUN_ID);
        return (batch, lines) -> hec.encode(batch);
      }
      default:
        throw new IllegalArgumentException("Unknown format for the benchmark: " + format + ".");
    }
  }

  /** What {@code LokiSender} does to a protobuf body: a raw snappy block, copied to its size. */
  static byte[] snappy(JsonBytes raw) {
    try {
      byte[] out = new byte[Snappy.maxCompressedLength(raw.size())];
      int n = Snappy.rawCompress(raw.array(), 0, raw.size(), out, 0);
      return Arrays.copyOf(out, n);
    } catch (IOException e) {
      throw new UncheckedIOException("Snappy could not compress a Loki push body.", e);
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH_LINES)
  public byte[] encode() {
    LineBatch batch = batches[next];
    next = (next + 1) % BATCHES;
    return encoder.encode(batch, all);
  }
}
