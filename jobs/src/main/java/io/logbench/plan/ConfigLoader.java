package io.logbench.plan;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.Durations;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.publish.Manifest;
import io.logbench.publish.ManifestStore;
import io.logbench.publish.PublishedTopic;
import io.logbench.rundir.RunDir;
import io.logbench.schedule.TimestampMode;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.kafka.KafkaConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * Reads and checks a YAML run file before anything runs. Every failure is a {@link
 * ConfigException} naming the file, the key path, the value and what was expected.
 */
public final class ConfigLoader {

  /** The seed 004 month: 2021-05-01T00:00-03:00 to 2021-06-01T00:00-03:00. */
  static final Instant NGINX_START = Instant.parse("2021-05-01T03:00:00Z");
  static final Instant NGINX_END = Instant.parse("2021-06-01T03:00:00Z");
  static final Instant APP_JSON_START = Instant.parse("2026-10-13T08:12:46Z");
  private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private ConfigLoader() {}

  /** Reads and checks {@code file}. */
  public static RunConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file + ": no such run file.");
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot be read: " + e.getMessage());
    }
    try {
      return parse(text, file.getFileName().toString().replaceFirst("\\.ya?ml$", ""));
    } catch (ConfigException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  private static final java.util.regex.Pattern VARIABLE =
      java.util.regex.Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

  /**
   * Replaces {@code ${NAME}} and {@code ${NAME:-default}} with environment variables (or system
   * properties), so one run
   * file serves several machines (addresses, ports); a variable that is not set and has no
   * default is an error naming its line.
   */
  public static String substitute(String text, java.util.function.UnaryOperator<String> env) {
    StringBuilder out = new StringBuilder();
    String[] lines = text.split("\n", -1);
    for (int n = 0; n < lines.length; n++) {
      java.util.regex.Matcher m = VARIABLE.matcher(lines[n]);
      StringBuilder line = new StringBuilder();
      while (m.find()) {
        String value = env.apply(m.group(1));
        if (value == null) {
          if (m.group(2) == null) {
            throw new ConfigException("line " + (n + 1) + ": ${" + m.group(1)
                + "} is not set in the environment; set it or write ${" + m.group(1) + ":-default}.");
          }
          value = m.group(2);
        }
        m.appendReplacement(line, java.util.regex.Matcher.quoteReplacement(value));
      }
      m.appendTail(line);
      out.append(line);
      if (n < lines.length - 1) {
        out.append('\n');
      }
    }
    return out.toString();
  }

  /** Checks a run file's text; {@code defaultName} names the run when the file does not. */
  public static RunConfig parse(String text, String defaultName) {
    return parse(text, defaultName, ConfigLoader::variable);
  }

  /** An environment variable, or else a Java system property of that name ({@code -DNAME=...}). */
  static String variable(String name) {
    String v = System.getenv(name);
    return v != null ? v : System.getProperty(name);
  }

  /** As {@link #parse(String, String)}, with {@code env} for {@code ${NAME}} variables. */
  public static RunConfig parse(String text, String defaultName, java.util.function.UnaryOperator<String> env) {
    return parse(text, defaultName, env, ManifestStore::read);
  }

  /** Finds the manifest of a published topic ({@code dataset: {kind: kafka}}); empty when it has none. */
  @FunctionalInterface
  public interface Manifests {
    Optional<Manifest> read(KafkaConnection kafka, String topic);
  }

  /**
   * As {@link #parse(String, String, java.util.function.UnaryOperator)}, reading the manifest of a
   * {@code kind: kafka} dataset through {@code manifests}.
   */
  public static RunConfig parse(String text, String defaultName, java.util.function.UnaryOperator<String> env,
      Manifests manifests) {
    text = substitute(text, env);
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
          + ", column " + e.getLocation().getColumnNr();
      throw new ConfigException("not valid YAML" + where + ": " + yamlMessage(e.getOriginalMessage()));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new ConfigException("empty run file; expected at least a dataset block.");
    }
    if (!root.isObject()) {
      throw new ConfigException("the run file must be a mapping of keys, not " + root.getNodeType() + ".");
    }
    ConfigNode top = new ConfigNode(root, "");
    top.allowOnly("name", "dataset", "schedule", "timestamps", "batch", "window", "zone", "parallelism", "run",
        "backends", Backends.WRITES, "visibility", "canary");

    String name = top.string("name", defaultName);
    if (name == null || !name.matches("[A-Za-z0-9._-]+")) {
      throw ConfigException.invalid("name", name, "letters, digits, '.', '_' or '-'");
    }
    if (!top.has("dataset")) {
      throw ConfigException.missing("dataset", "a dataset block with kind nginx-month, app-json or kafka");
    }
    DatasetSpec dataset = dataset(top.mapping("dataset"), manifests);
    ScheduleSpec schedule = schedule(top.mapping("schedule"));
    io.logbench.canary.CanarySettings canary =
        top.has("canary") ? io.logbench.canary.CanarySettings.parse(top.mapping("canary")) : null;
    TimestampMode timestamps = TimestampMode.fromKey(top.choice("timestamps", canary != null ? "now" : "original",
        "original", "compressed", "now"));
    int batchLines =
        (int) top.mapping("batch").allowOnly("lines")
            .integer("lines", 100, 1, 100_000, "a number of lines per batch from 1 to 100000");
    Duration window = top.duration("window", Duration.ofMinutes(1), false);
    checkWindow("window", window);
    ZoneId defaultZone =
        DatasetSpec.NGINX_MONTH.equals(dataset.kind()) ? NginxMonthDataset.SCRIPT_ZONE : ZoneOffset.UTC;
    ZoneId zone = top.zone("zone", defaultZone);
    JsonNode parallelismValue = top.raw().get("parallelism");
    boolean parallelismAuto = parallelismValue == null || parallelismValue.isNull()
        || parallelismValue.isTextual() && parallelismValue.asText().equals(RunConfig.AUTO);
    int parallelism = parallelismAuto ? RunConfig.autoParallelism(schedule, batchLines)
        : (int) top.integer("parallelism", RunConfig.DEFAULT_PARALLELISM, 1, 1024,
            "a Flink parallelism from 1 to 1024, or auto");
    ConfigNode run = top.mapping("run").allowOnly("dir", "checkpoint_interval", "checkpoint_dir", "ledger_kafka");
    io.logbench.ledger.LedgerKafka ledgerKafka = null;
    if (run.has("ledger_kafka")) {
      ConfigNode lk = run.mapping("ledger_kafka").allowOnly("bootstrap", "topic");
      String bootstrap = lk.string("bootstrap", null);
      if (bootstrap == null || bootstrap.isBlank()) {
        throw ConfigException.missing(lk.path() + ".bootstrap", "the Kafka bootstrap servers of the ledger topic");
      }
      ledgerKafka = new io.logbench.ledger.LedgerKafka(bootstrap, lk.string("topic", "logbench-ledger"));
    }
    RunDir runDir = runDir(run, "dir", run.string("dir", "runs/" + name));
    Duration checkpointInterval =
        run.duration("checkpoint_interval", RunConfig.DEFAULT_CHECKPOINT_INTERVAL, false);
    String checkpointDir = run.string("checkpoint_dir", null);
    if (checkpointDir != null && checkpointDir.isBlank()) {
      throw new ConfigException(run.path() + ".checkpoint_dir: '' is empty; expected a directory for the"
          + " generate job's retained checkpoints (or leave the key out for <run dir>/checkpoints).");
    }
    List<BackendConfig> backends = Backends.parseList(top, "backends");
    VisibilitySettings visibility = VisibilitySettings.parse(top.mapping("visibility"), VisibilitySettings.defaults());

    if (canary != null) {
      canaryCheck(dataset, schedule, timestamps, ledgerKafka);
    } else {
      sanityCheck(dataset, schedule, timestamps);
    }
    keepDatasetTopicApart(dataset, backends);
    return new RunConfig(name, dataset, schedule, timestamps, batchLines, window, zone, parallelism,
        parallelismAuto, runDir, backends, checkpointInterval, ledgerKafka, checkpointDir == null ? null
            : runDir(run, "checkpoint_dir", checkpointDir),
        visibility, canary);
  }

  /** A directory key's value: a path, or a URI of a Flink file system ({@link RunDir}). */
  private static RunDir runDir(ConfigNode run, String key, String value) {
    try {
      return RunDir.of(value);
    } catch (ConfigException | java.nio.file.InvalidPathException e) {
      throw new ConfigException(run.path() + "." + key + ": " + value + " is not a directory path or URI ("
          + e.getMessage() + "); expected a path, or a URI such as s3://bucket/runs/name.");
    }
  }

  private static DatasetSpec dataset(ConfigNode d, Manifests manifests) {
    String kind = d.choice("kind", null, DatasetSpec.NGINX_MONTH, DatasetSpec.APP_JSON, DatasetSpec.KAFKA);
    if (DatasetSpec.KAFKA.equals(kind)) {
      return published(d, manifests);
    }
    return generated(d, kind);
  }

  /**
   * A {@code kind: kafka} block: the topic's manifest is read now, and its dataset block becomes
   * the spec (so counts and times are the source dataset's arithmetic), marked as published.
   */
  private static DatasetSpec published(ConfigNode d, Manifests manifests) {
    d.allowOnly("kind", "bootstrap", "topic", "properties");
    KafkaConnection kafka = KafkaConnection.parse(d);
    String topic = d.string("topic", null);
    if (topic == null || topic.isBlank()) {
      throw ConfigException.missing(d.path() + ".topic", "the topic logbench publish wrote the dataset to");
    }
    Manifest manifest = manifests.read(kafka, topic).orElseThrow(() -> ConfigException.invalid(d.path() + ".topic",
        topic, "a topic written by logbench publish; topic " + ManifestStore.manifestTopic(topic) + " at "
            + kafka.bootstrap() + " holds no manifest for it"));
    String where = d.path() + ".topic: the manifest of topic " + topic + " (in topic "
        + ManifestStore.manifestTopic(topic) + ")";
    if (!topic.equals(manifest.topic())) {
      throw new ConfigException(where + " names topic " + manifest.topic() + "; expected " + topic
          + ". Publish the dataset again with --overwrite.");
    }
    if (!Manifest.currentValueSchema().equals(manifest.valueSchema())) {
      throw new ConfigException(where + " says its records follow LogRecord schema " + manifest.valueSchema()
          + "; this logbench reads schema " + Manifest.currentValueSchema()
          + ". Publish the dataset again with this logbench.");
    }
    ConfigNode block = new ConfigNode(manifest.dataset(), "dataset");
    String kind;
    try {
      kind = block.choice("kind", null, DatasetSpec.NGINX_MONTH, DatasetSpec.APP_JSON);
      return generated(block, kind).withPublished(new PublishedTopic(kafka, topic, manifest));
    } catch (ConfigException e) {
      throw new ConfigException(where + " has a dataset block this logbench cannot read: " + e.getMessage());
    }
  }

  private static DatasetSpec generated(ConfigNode d, String kind) {
    if (DatasetSpec.NGINX_MONTH.equals(kind)) {
      d.allowOnly("kind", "mode", "seed", "from", "until");
      NginxMonthDataset.Mode mode =
          NginxMonthDataset.Mode.fromKey(d.choice("mode", "python-compatible", "python-compatible", "fast"));
      long seed = d.integer("seed", 8, Long.MIN_VALUE, Long.MAX_VALUE, "an integer seed");
      Instant from = d.instant("from");
      Instant until = d.instant("until");
      from = from == null ? NGINX_START : from;
      until = until == null ? NGINX_END : until;
      checkSlice(d.path(), from, until);
      return new DatasetSpec(kind, mode, seed, from, until, null, 0, null, 0, null);
    }
    d.allowOnly("kind", "seed", "lines", "streams", "start", "rate");
    long seed = d.integer("seed", 0, Long.MIN_VALUE, Long.MAX_VALUE, "an integer seed");
    Long lines = d.has("lines")
        ? d.integer("lines", 0, 1, Long.MAX_VALUE / 4, "a number of lines greater than 0")
        : null;
    int streams = (int) d.integer("streams", 20, 1, 100_000, "a number of streams from 1 to 100000");
    Instant start = d.instant("start");
    long rate = d.integer("rate", 10_000, 1, 1_000_000_000_000L,
        "the dataset's own rate, a whole number of lines per second greater than 0");
    return new DatasetSpec(kind, null, seed, null, null, lines, streams,
        start == null ? APP_JSON_START : start, rate, null);
  }

  private static void checkSlice(String path, Instant from, Instant until) {
    String month = "a time in the seed 004 month, 2021-05-01T00:00:00-03:00 to 2021-06-01T00:00:00-03:00,"
        + " on a whole minute";
    for (var e : List.of(java.util.Map.entry("from", from), java.util.Map.entry("until", until))) {
      Instant t = e.getValue();
      if (t.isBefore(NGINX_START) || t.isAfter(NGINX_END) || t.toEpochMilli() % 60_000 != 0) {
        throw ConfigException.invalid(path + "." + e.getKey(), t.atOffset(ZoneOffset.ofHours(-3)).toString(), month);
      }
    }
    if (!until.isAfter(from)) {
      throw ConfigException.invalid(path + ".until", until.atOffset(ZoneOffset.ofHours(-3)).toString(),
          "a time after " + path + ".from (" + from.atOffset(ZoneOffset.ofHours(-3)) + ")");
    }
  }

  private static ScheduleSpec schedule(ConfigNode s) {
    String kind = s.choice("kind", ScheduleSpec.MAX,
        ScheduleSpec.CONSTANT, ScheduleSpec.LADDER, ScheduleSpec.REPLAY, ScheduleSpec.MAX);
    switch (kind) {
      case ScheduleSpec.CONSTANT -> {
        s.allowOnly("kind", "rate", "duration", "tick");
        if (!s.has("rate")) {
          throw ConfigException.missing(s.path() + ".rate", "lines per second, greater than 0");
        }
        double rate = s.number("rate", 0, 0, "lines per second, greater than 0");
        Duration duration = s.duration("duration", null, false);
        return new ScheduleSpec(kind, rate, duration, null, null, null, 0, tick(s));
      }
      case ScheduleSpec.LADDER -> {
        s.allowOnly("kind", "steps", "ramp", "hold", "step", "tick");
        List<Double> steps = s.numbers("steps", ScheduleSpec.DEFAULT_STEPS, 0, "lines per second, greater than 0");
        for (int i = 0; i < steps.size(); i++) {
          if (steps.get(i) != Math.rint(steps.get(i))) {
            throw ConfigException.invalid(s.path() + ".steps[" + i + "]", steps.get(i),
                "a whole number of lines per second, greater than 0");
          }
        }
        Duration ramp = s.duration("ramp", ScheduleSpec.DEFAULT_RAMP, true);
        if (s.has("step") && s.has("hold")) {
          throw new ConfigException(s.path() + ".step and " + s.path()
              + ".hold: give one of them; a step lasts its ramp plus its hold.");
        }
        Duration hold;
        if (s.has("step")) {
          Duration step = s.duration("step", null, false);
          if (ramp.compareTo(step) >= 0) {
            throw ConfigException.invalid(s.path() + ".ramp", Durations.format(ramp),
                "a ramp shorter than a step (" + s.path() + ".step is " + Durations.format(step) + ")");
          }
          hold = step.minus(ramp);
        } else {
          hold = s.duration("hold", ScheduleSpec.DEFAULT_HOLD, false);
        }
        return new ScheduleSpec(kind, 0, null, steps, ramp, hold, 0, tick(s));
      }
      case ScheduleSpec.REPLAY -> {
        s.allowOnly("kind", "speedup", "tick");
        double speedup = s.number("speedup", 1, 0, "a speed-up factor greater than 0");
        return new ScheduleSpec(kind, 0, null, null, null, null, speedup, tick(s));
      }
      default -> {
        s.allowOnly("kind");
        return new ScheduleSpec(kind, 0, null, null, null, null, 0, Duration.ZERO);
      }
    }
  }

  /** A paced schedule's {@code tick}: 0 up to {@link ScheduleSpec#MAX_TICK}. */
  private static Duration tick(ConfigNode s) {
    Duration tick = s.duration("tick", ScheduleSpec.DEFAULT_TICK, true);
    if (tick.compareTo(ScheduleSpec.MAX_TICK) > 0) {
      throw ConfigException.invalid(s.path() + ".tick", Durations.format(tick),
          "a pacing tick from 0 (every batch at its due time) to " + Durations.format(ScheduleSpec.MAX_TICK));
    }
    return tick;
  }

  /** One check of every rule that spans blocks. */
  private static void sanityCheck(DatasetSpec dataset, ScheduleSpec schedule, TimestampMode timestamps) {
    if (timestamps != TimestampMode.ORIGINAL && !schedule.paced()) {
      throw ConfigException.invalid("timestamps", timestamps.key(),
          "original with schedule.kind max: " + timestamps.key()
              + " timestamps follow the schedule's times, and max has none");
    }
    if (DatasetSpec.APP_JSON.equals(dataset.kind()) && dataset.lines() == null
        && !ScheduleSpec.LADDER.equals(schedule.kind())
        && !(ScheduleSpec.CONSTANT.equals(schedule.kind()) && schedule.duration() != null)) {
      throw ConfigException.missing("dataset.lines",
          "a number of lines: app-json has no end of its own unless the schedule is a ladder"
              + " or a constant rate with a duration");
    }
  }

  /** The fastest constant rate a canary takes, lines per second: a century of it fits in a long of lines. */
  public static final double MAX_CANARY_RATE = 10_000_000;

  /**
   * What a canary's run file must be: app-json lines (they carry their seq, and the canary adds
   * the run id to their body), at a constant rate without end, stamped with their scheduled time
   * ({@code now}): so every window's expected lines and their sequence ids are arithmetic, and a
   * window is decidable by sequence whatever time an agent stamps.
   */
  private static void canaryCheck(DatasetSpec dataset, ScheduleSpec schedule, TimestampMode timestamps,
      io.logbench.ledger.LedgerKafka ledgerKafka) {
    if (!DatasetSpec.APP_JSON.equals(dataset.kind()) || dataset.published() != null) {
      throw ConfigException.invalid("dataset.kind", dataset.published() != null ? DatasetSpec.KAFKA : dataset.kind(),
          "app-json for a canary (canary: is set): its lines carry their sequence number and the run id");
    }
    if (dataset.lines() != null) {
      throw new ConfigException("dataset.lines: a canary runs until it is stopped; leave the key out.");
    }
    if (!ScheduleSpec.CONSTANT.equals(schedule.kind())) {
      throw ConfigException.invalid("schedule.kind", schedule.kind(), "constant for a canary (canary: is set)");
    }
    if (schedule.duration() != null) {
      throw new ConfigException("schedule.duration: a canary runs until it is stopped; leave the key out.");
    }
    if (schedule.rate() > MAX_CANARY_RATE) {
      throw ConfigException.invalid("schedule.rate", schedule.rate(), "a canary's rate, at most "
          + String.format(java.util.Locale.ROOT, "%,.0f", MAX_CANARY_RATE) + " lines per second");
    }
    if (timestamps != TimestampMode.NOW) {
      throw ConfigException.invalid("timestamps", timestamps.key(), "now for a canary (canary: is set): each line"
          + " carries its scheduled time, so windows follow the schedule");
    }
    if (ledgerKafka != null) {
      throw new ConfigException("run.ledger_kafka: a canary keeps its ledger in its run directory; leave the key"
          + " out.");
    }
  }

  /**
   * A published dataset's topic is not a run's lines topic: a Kafka backend writing there would mix
   * the run's lines (and its count-back) with the dataset's.
   */
  private static void keepDatasetTopicApart(DatasetSpec dataset, List<BackendConfig> backends) {
    if (dataset.published() == null) {
      return;
    }
    PublishedTopic source = dataset.published();
    for (int i = 0; i < backends.size(); i++) {
      if (backends.get(i).spec() instanceof io.logbench.sink.kafka.KafkaBackend k
          && k.topic().equals(source.topic()) && k.bootstrap().equals(source.kafka().bootstrap())) {
        throw ConfigException.invalid("backends[" + i + "].topic", k.topic(),
            "another topic than the dataset's (dataset.topic): a published dataset's topic is read, never written"
                + " by a run");
      }
      if (backends.get(i).spec() instanceof io.logbench.sink.kafka.KafkaBackend k && k.exactlyOnce()) {
        throw ConfigException.invalid("backends[" + i + "].exactly_once", "true",
            "false when the dataset is read from Kafka (dataset kind kafka): an exactly_once backend needs"
                + " logbench's own source, which holds its end of input until the last transaction commits");
      }
    }
  }


  /** The parser's message on one line, without its echo of the input. */
  private static String yamlMessage(String message) {
    StringBuilder b = new StringBuilder();
    for (String line : message.split("\\R")) {
      String t = line.strip();
      if (t.isEmpty() || t.equals("^") || t.startsWith("in 'reader'") || line.startsWith("    ")) {
        continue;
      }
      if (b.length() > 0) {
        b.append("; ");
      }
      b.append(t);
    }
    return b.toString();
  }

  /** A window must divide a day, so windows line up with days and files. */
  static void checkWindow(String path, Duration window) {
    long ms = window == null ? 0 : window.toMillis();
    if (ms <= 0 || DAY_MILLIS % ms != 0) {
      throw ConfigException.invalid(path, window == null ? null : Durations.format(window),
          "a window size that divides a day (24h), such as 1m, 5m, 1h or 1d");
    }
  }
}
