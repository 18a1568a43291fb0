package io.logbench.cli;

import io.logbench.dataset.Dataset;
import io.logbench.job.PublishJob;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.publish.Manifest;
import io.logbench.publish.ManifestStore;
import io.logbench.publish.PublishTarget;
import io.logbench.sink.kafka.KafkaConnection;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code publish CONFIG --bootstrap B --topic T}: writes the run file's dataset (its slice, with
 * the lines' own times) to a Kafka topic in transactions, reads it back to count it, then writes
 * the manifest to {@code T.manifest}, so runs can replay it ({@code dataset: {kind: kafka}}).
 * Topics that would lose lines are refused with what to do; missing ones are created.
 */
@Command(name = "publish", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Write the run file's dataset (or its slice) to a Kafka topic as Avro LogRecords keyed by stream,"
          + " in transactions (Flink's exactly-once KafkaSink), count it back, and write its manifest to"
          + " TOPIC.manifest, for runs whose dataset is {kind: kafka, bootstrap, topic}.",
      "Creates the topics when absent (the lines topic with retention.ms=-1); refuses a topic that would"
          + " delete lines, and a topic that already holds a dataset unless --overwrite."
    })
final class PublishCommand implements Callable<Integer> {

  /** Partitions of a topic publish creates, unless --partitions says otherwise. */
  static final int DEFAULT_PARTITIONS = 4;

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file whose dataset block is published.")
  Path file;

  @Option(names = "--bootstrap", paramLabel = "SERVERS", required = true,
      description = "Kafka bootstrap servers, such as 127.0.0.1:9092.")
  String bootstrap;

  @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic the lines go to.")
  String topic;

  @Option(names = "--partitions", paramLabel = "N",
      description = "Partitions of the topic if publish creates it (default: " + DEFAULT_PARTITIONS + ").")
  int partitions = DEFAULT_PARTITIONS;

  @Option(names = "--parallelism", paramLabel = "N",
      description = "Writers, each owning some partitions (default: the run file's parallelism, at most the"
          + " partitions).")
  Integer parallelismOption;

  @Option(names = "--overwrite", description = "Replace a dataset the topic already holds (its records are deleted).")
  boolean overwrite;

  @Option(names = "--command-config", paramLabel = "FILE",
      description = "Kafka client properties (security settings), as Kafka's own tools take them.")
  Path commandConfig;

  @Option(names = "--transactional-id-prefix", paramLabel = "PREFIX",
      description = "Prefix of the writers' transactional ids (default: logbench-publish-TOPIC).")
  String transactionalIdPrefix;

  @Option(names = "--quiet", description = "No progress lines while the job runs.")
  boolean quiet;
  @Mixin ClusterOption cluster = new ClusterOption();

  private final PrintStream out;
  private final PrintStream err;

  PublishCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    ClusterOption.Jobs jobs = cluster.open("publish", new org.apache.flink.configuration.Configuration(), err);
    if (topic.isBlank() || topic.endsWith(".manifest")) {
      throw new UsageException("publish: --topic \"" + topic + "\" is not valid; expected a topic name that does"
          + " not end in .manifest (publish keeps the manifest in TOPIC.manifest).");
    }
    if (partitions < 1) {
      throw new UsageException("publish: --partitions " + partitions + " is not valid; expected 1 or more.");
    }
    if (parallelismOption != null && parallelismOption < 1) {
      throw new UsageException("publish: --parallelism " + parallelismOption + " is not valid; expected 1 or more.");
    }
    RunConfig config = ConfigLoader.load(file);
    if (config.dataset().published() != null) {
      throw new UsageException("publish: " + file + " replays " + config.dataset().published()
          + "; publish the run file whose dataset block made it.");
    }
    RunPlan plan = RunPlan.of(config);
    Dataset dataset = plan.dataset();
    long first = plan.firstIndex();
    long lines = plan.datasetLines();
    if (lines == 0) {
      throw new UsageException("publish: the dataset of " + file + " has no lines; expected a slice with lines.");
    }
    long firstMillis = dataset.timestampMillis(first);
    long lastMillis = dataset.timestampMillis(first + lines - 1);
    KafkaConnection kafka = KafkaConnection.of(bootstrap, commandConfig);
    err.printf(Locale.ROOT, "publish: %s, %s lines (%s to %s) to Kafka topic %s at %s%n",
        PlanCommand.describeDataset(plan, lines), Format.count(lines), Format.time(firstMillis, config.zone()),
        Format.time(lastMillis, config.zone()), topic, bootstrap);

    long t0 = System.nanoTime();
    try (jobs; PublishTarget target = new PublishTarget(kafka, topic)) {
      PublishTarget.Prepared prepared = target.prepare(partitions, firstMillis, lastMillis, overwrite);
      prepared.notes().forEach(n -> err.println("publish: " + n + "."));
      int writers = Math.min(parallelismOption != null ? parallelismOption : config.writerParallelism(),
          prepared.partitions());
      String prefix = transactionalIdPrefix != null ? transactionalIdPrefix : "logbench-publish-" + topic;
      Map<TopicPartition, Long> start = prepared.startOffsets();

      long jobStart = System.nanoTime();
      AtomicReference<String> latest =
          new AtomicReference<>("publish: starting " + writers + " writer(s) on Flink");
      try (Progress progress = Progress.start(Progress.mode(quiet, err), err, () -> List.of(latest.get()))) {
        new PublishJob(plan, kafka, topic, prepared.partitions(), writers, prefix)
            .run(jobs.environment(writers), Duration.ofSeconds(1), elapsed -> {
              // offsets count records and transaction markers: close to the lines written, never below
              latest.set(progressLine(Math.min(lines, target.writtenSince(start)), lines, elapsed));
            });
      }
      double jobSeconds = (System.nanoTime() - jobStart) / 1e9;

      Map<TopicPartition, Long> end = target.committedEndOffsets(prepared.partitions(), Duration.ofSeconds(60));
      long c0 = System.nanoTime();
      PublishTarget.Check check = target.check(start, end, first, lines);
      double checkSeconds = (System.nanoTime() - c0) / 1e9;
      if (!check.exactly(first, lines)) {
        throw new IllegalStateException("Topic " + topic + " does not hold exactly the " + lines + " lines published:"
            + " read back " + check.records() + " records, " + check.outOfRange() + " outside the dataset's ids, "
            + check.outOfOrder() + " out of order in their partition; no manifest was written. Publish again"
            + " with --overwrite.");
      }
      err.printf(Locale.ROOT, "publish: read back %s records in %.1f s: every line once, each partition in order%n",
          Format.count(check.records()), checkSeconds);

      List<Manifest.PartitionRange> ranges = new ArrayList<>();
      start.forEach((tp, s) -> ranges.add(new Manifest.PartitionRange(tp.partition(), s, end.get(tp))));
      Manifest manifest = new Manifest(topic, config.dataset().block(lines), first, lines, firstMillis, lastMillis,
          dataset.zone(), dataset.streams().size(), Manifest.currentValueSchema(), ranges, Instant.now());
      ManifestStore.write(kafka, manifest);
      double seconds = (System.nanoTime() - t0) / 1e9;
      out.printf(Locale.ROOT, "published %s lines to Kafka topic %s (%d partitions, %d writers) in %.1f s:"
              + " %.1f s writing (%s lines/s), %.1f s reading back; manifest in topic %s%n",
          Format.count(lines), topic, prepared.partitions(), writers, seconds, jobSeconds,
          Format.rate(lines / jobSeconds), checkSeconds, ManifestStore.manifestTopic(topic));
    }
    return 0;
  }

  /** One line: share written, lines, rate and the time left at that rate. */
  static String progressLine(long written, long lines, Duration elapsed) {
    double rate = written / Math.max(elapsed.toNanos() / 1e9, 1e-9);
    String eta = written >= lines ? "done" : rate > 0 ? Progress.duration((long) ((lines - written) * 1000 / rate)) : "?";
    return String.format(Locale.ROOT, "publish: %5.1f%%  about %s/%s lines  %s lines/s  ETA %s",
        100.0 * written / lines, Format.count(written), Format.count(lines), Format.rate(rate), eta);
  }
}
