package io.logbench.job;

import io.logbench.job.internal.CollectSinks;
import io.logbench.verify.BackendReport;
import io.logbench.verify.Verdict;
import io.logbench.verify.VerifyEvent;
import io.logbench.verify.VerifyTarget;
import io.logbench.verify.internal.CheckSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.avro.AvroSerializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The {@code verify} job: one pipeline per backend, each a self-pacing source that checks the
 * backend's windows ({@link CheckSource}) at parallelism 1, with no operator shared between
 * backends, so a backend that hangs or fails restarts only its own region. Final verdicts are
 * collected at the client per backend, and optionally written to a Kafka topic as Avro {@code
 * io.logbench.schemas.Verdict} records (one sink per backend).
 */
public final class VerifyJob {

  private final List<VerifyTarget> targets;
  private final String runName;
  private String verdictsBootstrap;
  private String verdictsTopic;

  public VerifyJob(String runName, List<VerifyTarget> targets) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("A verify job needs at least one backend to check.");
    }
    this.runName = runName;
    this.targets = List.copyOf(targets);
  }

  /** Also writes every final verdict to {@code topic} at {@code bootstrap}. */
  public VerifyJob verdictsTo(String bootstrap, String topic) {
    this.verdictsBootstrap = bootstrap;
    this.verdictsTopic = topic;
    return this;
  }

  /** Wires one pipeline per backend; returns each backend's events, by name. */
  public Map<String, DataStream<VerifyEvent>> build(StreamExecutionEnvironment env) {
    Map<String, DataStream<VerifyEvent>> out = new LinkedHashMap<>();
    for (VerifyTarget t : targets) {
      DataStream<VerifyEvent> events =
          env.fromSource(new CheckSource(t), WatermarkStrategy.noWatermarks(), "verify[" + t.name() + "]",
                  TypeInformation.of(VerifyEvent.class))
              .uid("verify-" + t.name())
              .setParallelism(1);
      if (verdictsBootstrap != null) {
        String run = runName;
        events.filter(e -> e.result() != null)
            .name("verdicts[" + t.name() + "]")
            .setParallelism(1)
            .map(e -> toAvro(e.result().verdict(), run))
            .returns(new AvroTypeInfo<>(io.logbench.schemas.Verdict.class))
            .name("verdict records[" + t.name() + "]")
            .setParallelism(1)
            .sinkTo(kafkaSink(verdictsBootstrap, verdictsTopic))
            .name("verdicts to kafka[" + t.name() + "]")
            .uid("verdicts-kafka-" + t.name())
            .setParallelism(1);
      }
      out.put(t.name(), events);
    }
    return out;
  }

  static KafkaSink<io.logbench.schemas.Verdict> kafkaSink(String bootstrap, String topic) {
    Properties p = new Properties();
    return KafkaSink.<io.logbench.schemas.Verdict>builder()
        .setBootstrapServers(bootstrap)
        .setKafkaProducerConfig(p)
        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .setRecordSerializer(KafkaRecordSerializationSchema.<io.logbench.schemas.Verdict>builder()
            .setTopic(topic)
            .setKeySerializationSchema(v -> (v.getBackend() + "@" + v.getWindowStartMillis())
                .getBytes(java.nio.charset.StandardCharsets.UTF_8))
            .setValueSerializationSchema(AvroSerializationSchema.forSpecific(io.logbench.schemas.Verdict.class))
            .build())
        .build();
  }

  /** The Avro record of a verdict. */
  public static io.logbench.schemas.Verdict toAvro(Verdict v, String run) {
    return io.logbench.schemas.Verdict.newBuilder()
        .setBackend(v.backend())
        .setRun(run)
        .setWindowStartMillis(v.windowStartMillis())
        .setWindowEndMillis(v.windowEndMillis())
        .setExpected(v.expected())
        .setAcked(v.acked())
        .setObserved(v.observed())
        .setStatus(io.logbench.schemas.VerdictStatus.valueOf(v.status().name()))
        .setDetail(v.detail())
        .build();
  }

  private volatile List<BackendReport> live = List.of();

  /**
   * Each backend's verdicts so far while {@link #run} runs (empty before), for progress lines;
   * the same reports {@link #run} returns.
   */
  public List<BackendReport> progress() {
    return live;
  }

  /** The backends checked, in order. */
  public List<VerifyTarget> targets() {
    return targets;
  }

  /**
   * Builds the job, runs it on {@code env} until every backend's windows have final verdicts, and
   * returns a report per backend (in the order of the targets).
   */
  public List<BackendReport> run(StreamExecutionEnvironment env) throws Exception {
    Map<String, DataStream<VerifyEvent>> streams = build(env);
    Map<String, CloseableIterator<VerifyEvent>> iterators = new LinkedHashMap<>();
    for (Map.Entry<String, DataStream<VerifyEvent>> e : streams.entrySet()) {
      iterators.put(e.getKey(), CollectSinks.collectAsync(e.getValue()));
    }
    JobClient client = env.executeAsync("logbench verify " + runName);
    List<BackendReport> reports = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (VerifyTarget t : targets) {
      BackendReport report = new BackendReport(t.name());
      reports.add(report);
      CloseableIterator<VerifyEvent> it = iterators.get(t.name());
      Thread thread = new Thread(() -> {
        try (it) {
          while (it.hasNext()) {
            report.add(it.next());
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "logbench-verdicts-" + t.name());
      thread.setDaemon(true);
      thread.start();
      threads.add(thread);
    }
    live = List.copyOf(reports);
    client.getJobExecutionResult().get();
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("Collecting the verdicts of the verify job failed.", failure.get());
    }
    return reports;
  }
}
