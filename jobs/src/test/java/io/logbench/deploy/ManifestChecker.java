package io.logbench.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.plan.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks deploy/kubernetes/ the way the Flink Kubernetes Operator and kustomize would read it,
 * without a cluster: every YAML document parses, each FlinkDeployment and FlinkSessionJob has the
 * operator's required fields with values logbench can run, and every name a manifest refers to (a
 * kustomization resource, a Dockerfile COPY source, a ConfigMap, Secret, PersistentVolumeClaim,
 * Service or session cluster) exists in the same kustomize build; a Deployment that runs {@code
 * canary} is checked as one (its run file, run directory, Prometheus port and PodMonitor, and the
 * Fluent Bit beside it tailing the file it writes), and a PrometheusRule must hold the groups of
 * deploy/prometheus's rules file. Problems are collected as full
 * sentences, so a test can show all of them at once and a broken copy can show which one fires.
 */
final class ManifestChecker {

  static final String API_VERSION = "flink.apache.org/v1beta1";
  static final String ENTRY_CLASS = "io.logbench.cli.Main";
  static final Set<String> COMMANDS = Set.of("plan", "dataset", "generate", "verify");
  static final Set<String> UPGRADE_MODES = Set.of("stateless", "savepoint", "last-state");
  static final Set<String> JOB_STATES = Set.of("running", "suspended");
  static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  static final Pattern MEMORY = Pattern.compile("\\d+(\\.\\d+)?(m|mb|g|gb|Mi|Gi)");
  static final Pattern COPY = Pattern.compile("^COPY\\s+(?:--\\S+\\s+)*(\\S+)\\s+(\\S+)\\s*$", Pattern.MULTILINE);
  static final Pattern FROM = Pattern.compile("^FROM\\s+(\\S+)", Pattern.MULTILINE);

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** One YAML document and the file it came from. */
  record Doc(Path file, JsonNode node) {
    String kind() {
      return node.path("kind").asText();
    }

    String name() {
      return node.path("metadata").path("name").asText();
    }

    @Override
    public String toString() {
      return kind() + " " + name() + " (" + file.getFileName() + ")";
    }
  }

  private final Path repoRoot;
  private final Path dir;
  private final String flinkVersion;
  private final List<String> problems = new ArrayList<>();

  /**
   * A checker of {@code dir} (a copy of deploy/kubernetes/ or the real one); Dockerfile sources
   * are resolved from {@code repoRoot}, and the Flink version the manifests must name is the
   * root pom's.
   */
  ManifestChecker(Path repoRoot, Path dir) throws IOException {
    this.repoRoot = repoRoot;
    this.dir = dir;
    Matcher m = Pattern.compile("<flink.version>([^<]+)</flink.version>")
        .matcher(Files.readString(repoRoot.resolve("pom.xml")));
    if (!m.find()) {
      throw new IllegalStateException("the root pom.xml has no flink.version property.");
    }
    this.flinkVersion = m.group(1);
  }

  /** Every problem found, as sentences; empty when the manifests are consistent. */
  List<String> check() throws IOException {
    problems.clear();
    List<Path> yamlFiles;
    try (Stream<Path> files = Files.walk(dir)) {
      yamlFiles = files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
          .sorted().toList();
    }
    Map<Path, List<Doc>> docs = new LinkedHashMap<>();
    for (Path f : yamlFiles) {
      docs.put(f.toAbsolutePath().normalize(), parse(f));
    }
    Set<Path> referenced = new LinkedHashSet<>();
    List<Path> roots = new ArrayList<>();
    for (Path f : docs.keySet()) {
      if (f.getFileName().toString().equals("kustomization.yaml")) {
        roots.add(f);
      }
    }
    if (roots.isEmpty()) {
      problems.add(dir + " has no kustomization.yaml.");
    }
    // Each kustomization is one build (kubectl apply -k DIR): references must resolve within it.
    Set<Path> used = new LinkedHashSet<>();
    for (Path k : roots) {
      List<Doc> build = new ArrayList<>();
      collect(k, docs, build, used, new LinkedHashSet<>());
      referenced.addAll(used);
      checkBuild(k, build);
    }
    for (Path f : docs.keySet()) {
      String name = f.getFileName().toString();
      if (!name.equals("kustomization.yaml") && !referenced.contains(f)) {
        problems.add(dir.relativize(f) + " is in no kustomization.yaml: kubectl apply -k would leave it out.");
      }
    }
    checkDockerfile();
    return List.copyOf(new LinkedHashSet<>(problems)); // a base shared by two builds reports once
  }

  private List<Doc> parse(Path file) throws IOException {
    List<Doc> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNext()) {
        JsonNode node = it.next();
        if (node != null && !node.isNull() && !node.isMissingNode()) {
          out.add(new Doc(file, node));
        }
      }
    } catch (IOException e) {
      problems.add(dir.relativize(file) + " is not valid YAML: " + e.getMessage());
    }
    return out;
  }

  /** Adds the documents of kustomization {@code k} and of everything it lists to {@code build}. */
  private void collect(Path k, Map<Path, List<Doc>> docs, List<Doc> build, Set<Path> used, Set<Path> seen) {
    if (!seen.add(k)) {
      return;
    }
    used.add(k);
    Path base = k.getParent();
    for (Doc kust : docs.getOrDefault(k, List.of())) {
      for (String field : List.of("resources", "configurations")) {
        for (JsonNode entry : kust.node().path(field)) {
          Path p = base.resolve(entry.asText()).toAbsolutePath().normalize();
          if (Files.isDirectory(p) && field.equals("resources")) {
            Path sub = p.resolve("kustomization.yaml");
            if (!Files.isRegularFile(sub)) {
              problems.add(dir.relativize(k) + " lists " + field + " entry " + entry.asText()
                  + ", a directory without kustomization.yaml.");
            } else {
              collect(sub, docs, build, used, seen);
            }
          } else if (!Files.isRegularFile(p)) {
            problems.add(dir.relativize(k) + " lists " + field + " entry " + entry.asText()
                + ", which does not exist.");
          } else {
            used.add(p);
            if (field.equals("resources")) {
              build.addAll(docs.getOrDefault(p, List.of()));
            }
          }
        }
      }
    }
  }

  private void checkBuild(Path k, List<Doc> build) {
    String where = "in the build of " + dir.relativize(k) + ", ";
    Map<String, Doc> byKindAndName = new LinkedHashMap<>();
    for (Doc d : build) {
      if (d.kind().isEmpty() || d.name().isEmpty()) {
        problems.add(where + "a document of " + d.file().getFileName() + " has no kind or metadata.name.");
        continue;
      }
      if (byKindAndName.put(d.kind() + "/" + d.name(), d) != null) {
        problems.add(where + d + " is defined twice.");
      }
    }
    for (Doc d : build) {
      switch (d.kind()) {
        case "FlinkDeployment" -> checkDeployment(where, d, byKindAndName);
        case "FlinkSessionJob" -> checkSessionJob(where, d, byKindAndName);
        case "Deployment" -> {
          checkPodSpec(where, d, d.node().path("spec").path("template").path("spec"), byKindAndName);
          checkCanary(where, d, byKindAndName);
        }
        case "PrometheusRule" -> checkPrometheusRule(where, d);
        default -> { }
      }
    }
  }

  /** The rules file every PrometheusRule of the build must hold, relative to the repository root. */
  static final String CANARY_RULES = "deploy/prometheus/logbench-canary.rules.yaml";

  /**
   * A Deployment whose container runs {@code java -jar JAR canary RUNFILE ...}: the jar is one the
   * Dockerfile copies, the run file a mounted ConfigMap key that logbench takes (with a {@code
   * canary:} block), {@code --run-dir} on a claim, one replica replaced with Recreate (a canary
   * locks its run directory), {@code --prometheus} on every address at a port of the container that
   * a PodMonitor of the build scrapes in this pod, and each file the run file writes on a volume
   * that another container of the pod mounts too, where a Fluent Bit ConfigMap mounted in it tails
   * exactly that path.
   */
  private void checkCanary(String where, Doc d, Map<String, Doc> objects) {
    JsonNode pod = d.node().path("spec").path("template").path("spec");
    for (JsonNode c : pod.path("containers")) {
      List<String> words = new ArrayList<>();
      c.path("command").forEach(w -> words.add(w.asText()));
      c.path("args").forEach(w -> words.add(w.asText()));
      int at = words.indexOf("canary");
      if (at < 0) {
        continue;
      }
      String what = where + d + " container " + c.path("name").asText();
      int jarAt = words.indexOf("-jar");
      if (jarAt < 0 || jarAt + 1 >= at || !dockerfileDestinations().contains(words.get(jarAt + 1))) {
        problems.add(what + ": runs canary without java -jar on a jar deploy/kubernetes/Dockerfile copies ("
            + dockerfileDestinations() + "): " + words + ".");
      }
      JsonNode spec = d.node().path("spec");
      if (spec.path("replicas").asInt(1) != 1 || !spec.path("strategy").path("type").asText().equals("Recreate")) {
        problems.add(what + ": a canary needs spec.replicas 1 and spec.strategy.type Recreate (it locks its run"
            + " directory; a second pod is refused while the first holds it).");
      }
      List<JsonNode> podSpecs = List.of(pod);
      String runFile = at + 1 < words.size() ? words.get(at + 1) : "";
      String runText = mountedConfigMapFile(runFile, podSpecs, objects);
      JsonNode runTree = null;
      if (runText == null) {
        problems.add(what + ": the run file " + runFile + " is not a key of a ConfigMap mounted in the pod.");
      } else {
        try {
          if (ConfigLoader.parse(runText, "run", name -> null).canary() == null) {
            problems.add(what + ": the run file " + runFile + " has no canary: block.");
          }
          runTree = YAML.readTree(runText);
        } catch (ConfigException | IOException e) {
          problems.add(what + ": the run file " + runFile + " is not valid: " + e.getMessage());
        }
      }
      String runDir = option(words, "--run-dir");
      if (runDir == null || volumeUnder(runDir, podSpecs, objects) == null) {
        problems.add(what + ": --run-dir " + runDir + " is on no PersistentVolumeClaim mounted in the pod: the"
            + " canary's run, checkpoints and verdicts would vanish with it.");
      }
      checkScraped(what, c, option(words, "--prometheus"), d, objects);
      if (runTree != null) {
        for (JsonNode w : runTree.path("writes")) {
          if (w.path("kind").asText().equals("file")) {
            List<JsonNode> outputs = checkTailed(what, pod, c, w.path("path").asText(), objects);
            checkLokiLabels(what, runTree, w.path("name").asText(), outputs);
          }
        }
      }
    }
  }

  private static String option(List<String> words, String name) {
    int i = words.indexOf(name);
    return i >= 0 && i + 1 < words.size() ? words.get(i + 1) : null;
  }

  /** {@code --prometheus 0.0.0.0:PORT}, PORT a named port of the container a PodMonitor scrapes. */
  private void checkScraped(String what, JsonNode container, String address, Doc d, Map<String, Doc> objects) {
    if (address == null || !address.matches("0\\.0\\.0\\.0:\\d+")) {
      problems.add(what + ": --prometheus is " + address + "; expected 0.0.0.0:PORT, so Prometheus can reach the"
          + " pod's address (127.0.0.1 is the pod's own loopback).");
      return;
    }
    int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
    String portName = null;
    for (JsonNode p : container.path("ports")) {
      if (p.path("containerPort").asInt() == port) {
        portName = p.path("name").asText();
      }
    }
    if (portName == null || portName.isEmpty()) {
      problems.add(what + ": --prometheus port " + port + " is no named containerPort of the container.");
      return;
    }
    JsonNode labels = d.node().path("spec").path("template").path("metadata").path("labels");
    boolean scraped = false;
    for (Doc m : objects.values()) {
      if (!m.kind().equals("PodMonitor")) {
        continue;
      }
      boolean selects = true;
      var match = m.node().path("spec").path("selector").path("matchLabels").fields();
      while (match.hasNext()) {
        var e = match.next();
        selects &= labels.path(e.getKey()).asText().equals(e.getValue().asText());
      }
      for (JsonNode ep : m.node().path("spec").path("podMetricsEndpoints")) {
        scraped |= selects && ep.path("port").asText().equals(portName);
      }
    }
    if (!scraped) {
      problems.add(what + ": no PodMonitor of this build selects the pod's labels " + labels + " and scrapes its"
          + " port " + portName + " (--prometheus " + address + ").");
    }
  }

  /**
   * Each loki count block behind {@code write} selects streams by labels that a Fluent Bit loki
   * output tailing the write puts on them ({@code labels: k=v,...}): else it counts nothing.
   */
  private void checkLokiLabels(String what, JsonNode runTree, String write, List<JsonNode> outputs) {
    for (JsonNode b : runTree.path("backends")) {
      if (!b.path("kind").asText().equals("loki") || !b.path("write").asText().equals(write)) {
        continue;
      }
      boolean put = false;
      for (JsonNode o : outputs) {
        if (!o.path("name").asText().equals("loki")) {
          continue;
        }
        Set<String> labels = new LinkedHashSet<>();
        for (String kv : o.path("labels").asText().split(",")) {
          labels.add(kv.trim().replaceAll("\\s*=\\s*", "="));
        }
        boolean all = true;
        var it = b.path("labels").fields();
        while (it.hasNext()) {
          var e = it.next();
          all &= labels.contains(e.getKey() + "=" + e.getValue().asText());
        }
        put |= all;
      }
      if (!put) {
        problems.add(what + ": the loki block " + b.path("name").asText() + " selects " + b.path("labels")
            + ", labels no Fluent Bit loki output tailing the write " + write + " puts on its streams.");
      }
    }
  }

  /**
   * The log file {@code path} is on a volume another container mounts, whose Fluent Bit tails it;
   * returns the outputs of the Fluent Bit configs that do.
   */
  private List<JsonNode> checkTailed(String what, JsonNode pod, JsonNode canary, String path,
      Map<String, Doc> objects) {
    List<JsonNode> outputs = new ArrayList<>();
    String volume = null;
    String mountPath = null;
    for (JsonNode m : canary.path("volumeMounts")) {
      String at = m.path("mountPath").asText();
      if (path.startsWith(at.endsWith("/") ? at : at + "/")) {
        volume = m.path("name").asText();
        mountPath = at;
      }
    }
    if (volume == null) {
      problems.add(what + ": the written file " + path + " is on no volume of the container: no other container"
          + " can tail it.");
      return outputs;
    }
    boolean tailed = false;
    for (JsonNode other : pod.path("containers")) {
      if (other == canary) {
        continue;
      }
      String otherAt = null;
      for (JsonNode m : other.path("volumeMounts")) {
        if (m.path("name").asText().equals(volume)) {
          otherAt = m.path("mountPath").asText();
        }
      }
      if (otherAt == null) {
        continue;
      }
      String seen = otherAt + path.substring(mountPath.length());
      for (JsonNode m : other.path("volumeMounts")) {
        String config = mountedConfigMapFile(m.path("mountPath").asText(), List.of(pod), objects);
        if (config == null || !m.path("mountPath").asText().contains("fluent-bit")) {
          continue;
        }
        try {
          JsonNode pipeline = YAML.readTree(config).path("pipeline");
          boolean here = false;
          for (JsonNode in : pipeline.path("inputs")) {
            here |= in.path("name").asText().equals("tail") && in.path("path").asText().equals(seen);
          }
          if (here) {
            pipeline.path("outputs").forEach(outputs::add);
          }
          tailed |= here;
        } catch (IOException e) {
          problems.add(what + ": the Fluent Bit config at " + m.path("mountPath").asText() + " is not valid YAML: "
              + e.getMessage());
        }
      }
    }
    if (!tailed) {
      problems.add(what + ": no Fluent Bit container of the pod tails the written file " + path + " (a tail input"
          + " with that path, on the same volume " + volume + ").");
    }
    return outputs;
  }

  /** A PrometheusRule's spec.groups are {@value #CANARY_RULES}'s groups. */
  private void checkPrometheusRule(String where, Doc d) {
    try {
      JsonNode rules = YAML.readTree(repoRoot.resolve(CANARY_RULES).toFile());
      if (!d.node().path("spec").path("groups").equals(rules.path("groups"))) {
        problems.add(where + d + ": spec.groups differs from the groups of " + CANARY_RULES
            + " (the alert rules promtool tests): keep them equal.");
      }
    } catch (IOException e) {
      problems.add(where + d + ": " + CANARY_RULES + " cannot be read: " + e.getMessage());
    }
  }

  private void checkDeployment(String where, Doc d, Map<String, Doc> objects) {
    JsonNode spec = d.node().path("spec");
    String what = where + d;
    if (!d.node().path("apiVersion").asText().equals(API_VERSION)) {
      problems.add(what + ": apiVersion is \"" + d.node().path("apiVersion").asText() + "\"; expected "
          + API_VERSION + ".");
    }
    if (!DNS_LABEL.matcher(d.name()).matches()) {
      problems.add(what + ": metadata.name must be a DNS label (lowercase letters, digits and '-').");
    }
    require(what, spec, "image");
    require(what, spec, "serviceAccount");
    String expectedVersion = "v" + flinkVersion.replaceFirst("^(\\d+)\\.(\\d+).*", "$1_$2");
    if (!spec.path("flinkVersion").asText().equals(expectedVersion)) {
      problems.add(what + ": spec.flinkVersion is \"" + spec.path("flinkVersion").asText() + "\"; expected "
          + expectedVersion + ", the Flink of the root pom (" + flinkVersion + ").");
    }
    for (String role : List.of("jobManager", "taskManager")) {
      JsonNode resource = spec.path(role).path("resource");
      if (!MEMORY.matcher(resource.path("memory").asText()).matches()) {
        problems.add(what + ": spec." + role + ".resource.memory is \"" + resource.path("memory").asText()
            + "\"; expected a size such as 1536m or 2g.");
      }
      if (!resource.path("cpu").isNumber() || resource.path("cpu").asDouble() <= 0) {
        problems.add(what + ": spec." + role + ".resource.cpu is \"" + resource.path("cpu").asText()
            + "\"; expected a number of cores above 0.");
      }
    }
    JsonNode config = spec.path("flinkConfiguration");
    List<JsonNode> podSpecs = new ArrayList<>();
    for (JsonNode template : List.of(spec.path("podTemplate"), spec.path("jobManager").path("podTemplate"),
        spec.path("taskManager").path("podTemplate"))) {
      if (!template.isMissingNode()) {
        podSpecs.add(template.path("spec"));
        checkPodSpec(what + " podTemplate", d, template.path("spec"), objects);
      }
    }
    checkStateDirs(what, config, podSpecs, objects);
    JsonNode job = spec.path("job");
    if (job.isMissingNode()) {
      return; // a session cluster
    }
    String jar = job.path("jarURI").asText();
    if (!jar.startsWith("local:///")) {
      problems.add(what + ": spec.job.jarURI is \"" + jar + "\"; expected a local:///... jar inside the image.");
    } else if (!dockerfileDestinations().contains(jar.substring("local://".length()))) {
      problems.add(what + ": spec.job.jarURI " + jar + " is not where deploy/kubernetes/Dockerfile copies a jar ("
          + dockerfileDestinations() + ").");
    }
    checkJob(what, job, podSpecs, objects);
    String upgrade = job.path("upgradeMode").asText();
    if (upgrade.equals("savepoint")
        && !has(config, "execution.checkpointing.savepoint-dir", "state.savepoints.dir")) {
      problems.add(what + ": upgradeMode savepoint needs execution.checkpointing.savepoint-dir in"
          + " flinkConfiguration.");
    }
    if (upgrade.equals("last-state") && !has(config, "high-availability.type")) {
      problems.add(what + ": upgradeMode last-state needs high-availability.type in flinkConfiguration.");
    }
  }

  private void checkSessionJob(String where, Doc d, Map<String, Doc> objects) {
    JsonNode spec = d.node().path("spec");
    String what = where + d;
    if (!d.node().path("apiVersion").asText().equals(API_VERSION)) {
      problems.add(what + ": apiVersion is \"" + d.node().path("apiVersion").asText() + "\"; expected "
          + API_VERSION + ".");
    }
    String session = spec.path("deploymentName").asText();
    Doc cluster = objects.get("FlinkDeployment/" + session);
    if (cluster == null) {
      problems.add(what + ": spec.deploymentName \"" + session + "\" names no FlinkDeployment of this build.");
    } else if (!cluster.node().path("spec").path("job").isMissingNode()) {
      problems.add(what + ": spec.deploymentName \"" + session + "\" is an application cluster (it has a job),"
          + " not a session cluster.");
    }
    JsonNode job = spec.path("job");
    String jar = job.path("jarURI").asText();
    URI uri;
    try {
      uri = URI.create(jar);
    } catch (IllegalArgumentException e) {
      problems.add(what + ": spec.job.jarURI \"" + jar + "\" is not a URI.");
      return;
    }
    if (uri.getScheme() == null || uri.getScheme().equals("local")) {
      problems.add(what + ": spec.job.jarURI is \"" + jar + "\"; the operator fetches a session job's jar"
          + " itself, so it must be http(s) or an object store, not a jar inside the image.");
    } else if (uri.getScheme().startsWith("http")) {
      // An in-cluster host (a bare name, or name.namespace.svc...) must be a Service of this build.
      String host = uri.getHost() == null ? "" : uri.getHost();
      boolean inCluster = !host.contains(".") || host.contains(".svc");
      if (inCluster && !objects.containsKey("Service/" + host.split("\\.")[0])) {
        problems.add(what + ": spec.job.jarURI host " + uri.getHost() + " names no Service of this build.");
      }
    }
    if (cluster == null) {
      return;
    }
    List<JsonNode> podSpecs = new ArrayList<>();
    JsonNode clusterSpec = cluster.node().path("spec");
    for (JsonNode template : List.of(clusterSpec.path("podTemplate"),
        clusterSpec.path("jobManager").path("podTemplate"))) {
      if (!template.isMissingNode()) {
        podSpecs.add(template.path("spec"));
      }
    }
    checkJob(what, job, podSpecs, objects);
  }

  /** Entry class, command, upgrade mode, state, and the run file and run directory on mounts. */
  private void checkJob(String what, JsonNode job, List<JsonNode> podSpecs, Map<String, Doc> objects) {
    String entry = job.path("entryClass").asText();
    if (!entry.equals(ENTRY_CLASS)) {
      problems.add(what + ": spec.job.entryClass is \"" + entry + "\"; expected " + ENTRY_CLASS + ".");
    }
    try {
      Method main = Class.forName(entry).getMethod("main", String[].class);
      if (!Modifier.isStatic(main.getModifiers())) {
        problems.add(what + ": " + entry + ".main is not static.");
      }
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      problems.add(what + ": spec.job.entryClass " + entry
          + " is not a class with main(String[]) on the classpath.");
    }
    JsonNode args = job.path("args");
    if (!args.isArray() || args.isEmpty() || !COMMANDS.contains(args.get(0).asText())) {
      problems.add(what + ": spec.job.args must start with a logbench command (" + COMMANDS + "), not "
          + args + ".");
      return;
    }
    if (!UPGRADE_MODES.contains(job.path("upgradeMode").asText())) {
      problems.add(what + ": spec.job.upgradeMode is \"" + job.path("upgradeMode").asText()
          + "\"; expected one of " + UPGRADE_MODES + ".");
    }
    if (!JOB_STATES.contains(job.path("state").asText())) {
      problems.add(what + ": spec.job.state is \"" + job.path("state").asText() + "\"; expected one of "
          + JOB_STATES + ".");
    }
    if (!job.path("parallelism").canConvertToInt() || job.path("parallelism").asInt() < 1) {
      problems.add(what + ": spec.job.parallelism must be a whole number of at least 1.");
    }
    if (args.size() < 2 || args.get(0).asText().equals("plan")) {
      return;
    }
    String runFile = args.get(1).asText();
    String runText = mountedConfigMapFile(runFile, podSpecs, objects);
    if (runText == null) {
      problems.add(what + ": the run file " + runFile + " is not a key of a ConfigMap mounted in the pods.");
    } else {
      try {
        ConfigLoader.parse(runText, "run", name -> null);
      } catch (ConfigException e) {
        problems.add(what + ": the run file " + runFile + " is not valid: " + e.getMessage());
      }
    }
    for (int i = 2; i < args.size() - 1; i++) {
      if (args.get(i).asText().equals("--run-dir")
          && volumeUnder(args.get(i + 1).asText(), podSpecs, objects) == null) {
        problems.add(what + ": --run-dir " + args.get(i + 1).asText()
            + " is on no PersistentVolumeClaim mounted in the pods: the run would vanish with them.");
      }
    }
  }

  /** Checkpoints, savepoints and HA metadata on file:// must be on a mounted claim. */
  private void checkStateDirs(String what, JsonNode config, List<JsonNode> podSpecs, Map<String, Doc> objects) {
    for (String key : List.of("execution.checkpointing.dir", "execution.checkpointing.savepoint-dir",
        "high-availability.storageDir", "state.checkpoints.dir", "state.savepoints.dir")) {
      String value = config.path(key).asText();
      if (value.startsWith("file://")
          && volumeUnder(value.substring("file://".length()), podSpecs, objects) == null) {
        problems.add(what + ": " + key + " " + value + " is on no PersistentVolumeClaim mounted in the pods.");
      }
    }
  }

  private void checkPodSpec(String what, Doc d, JsonNode podSpec, Map<String, Doc> objects) {
    Map<String, JsonNode> volumes = new LinkedHashMap<>();
    for (JsonNode v : podSpec.path("volumes")) {
      volumes.put(v.path("name").asText(), v);
      refer(what, objects, "ConfigMap", v.path("configMap").path("name"));
      refer(what, objects, "Secret", v.path("secret").path("secretName"));
      refer(what, objects, "PersistentVolumeClaim", v.path("persistentVolumeClaim").path("claimName"));
    }
    for (String list : List.of("containers", "initContainers")) {
      for (JsonNode c : podSpec.path(list)) {
        for (JsonNode from : c.path("envFrom")) {
          refer(what, objects, "Secret", from.path("secretRef").path("name"));
          refer(what, objects, "ConfigMap", from.path("configMapRef").path("name"));
        }
        for (JsonNode env : c.path("env")) {
          JsonNode secretKey = env.path("valueFrom").path("secretKeyRef");
          if (refer(what, objects, "Secret", secretKey.path("name"))) {
            JsonNode secret = objects.get("Secret/" + secretKey.path("name").asText()).node();
            if (!secret.path("stringData").has(secretKey.path("key").asText())
                && !secret.path("data").has(secretKey.path("key").asText())) {
              problems.add(what + ": Secret " + secretKey.path("name").asText() + " has no key "
                  + secretKey.path("key").asText() + ".");
            }
          }
        }
        for (JsonNode mount : c.path("volumeMounts")) {
          JsonNode volume = volumes.get(mount.path("name").asText());
          if (volume == null) {
            problems.add(what + ": container " + c.path("name").asText() + " mounts volume "
                + mount.path("name").asText() + ", which the pod does not declare.");
          } else if (mount.has("subPath") && volume.has("configMap")) {
            Doc map = objects.get("ConfigMap/" + volume.path("configMap").path("name").asText());
            if (map != null && !map.node().path("data").has(mount.path("subPath").asText())) {
              problems.add(what + ": ConfigMap " + map.name() + " has no key " + mount.path("subPath").asText()
                  + " for the mount at " + mount.path("mountPath").asText() + ".");
            }
          }
        }
      }
    }
  }

  /** True when {@code name} (if given) names an object of {@code kind} in the build. */
  private boolean refer(String what, Map<String, Doc> objects, String kind, JsonNode name) {
    if (name.isMissingNode() || name.asText().isEmpty()) {
      return false;
    }
    if (!objects.containsKey(kind + "/" + name.asText())) {
      problems.add(what + " refers to " + kind + " " + name.asText() + ", which this build does not define.");
      return false;
    }
    return true;
  }

  /** The text of the ConfigMap key mounted (subPath) at {@code path}, or null. */
  private String mountedConfigMapFile(String path, List<JsonNode> podSpecs, Map<String, Doc> objects) {
    for (JsonNode podSpec : podSpecs) {
      for (JsonNode c : podSpec.path("containers")) {
        for (JsonNode mount : c.path("volumeMounts")) {
          if (!mount.path("mountPath").asText().equals(path)) {
            continue;
          }
          for (JsonNode v : podSpec.path("volumes")) {
            if (v.path("name").asText().equals(mount.path("name").asText()) && v.has("configMap")) {
              Doc map = objects.get("ConfigMap/" + v.path("configMap").path("name").asText());
              if (map != null) {
                JsonNode text = map.node().path("data").path(mount.path("subPath").asText());
                return text.isTextual() ? text.asText() : null;
              }
            }
          }
        }
      }
    }
    return null;
  }

  /** The claim of this build mounted at or above {@code path} in the main containers, or null. */
  private String volumeUnder(String path, List<JsonNode> podSpecs, Map<String, Doc> objects) {
    for (JsonNode podSpec : podSpecs) {
      for (JsonNode c : podSpec.path("containers")) {
        for (JsonNode mount : c.path("volumeMounts")) {
          String at = mount.path("mountPath").asText();
          if (!(path.equals(at) || path.startsWith(at.endsWith("/") ? at : at + "/"))) {
            continue;
          }
          for (JsonNode v : podSpec.path("volumes")) {
            String claim = v.path("persistentVolumeClaim").path("claimName").asText();
            if (v.path("name").asText().equals(mount.path("name").asText())
                && objects.containsKey("PersistentVolumeClaim/" + claim)) {
              return claim;
            }
          }
        }
      }
    }
    return null;
  }

  private List<String> dockerfileDestinations() {
    List<String> out = new ArrayList<>();
    Matcher m = COPY.matcher(dockerfile());
    while (m.find()) {
      out.add(m.group(2));
    }
    return out;
  }

  private String dockerfile() {
    try {
      Path f = dir.resolve("Dockerfile");
      return Files.isRegularFile(f) ? Files.readString(f) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** FROM names Flink's image at the root pom's version; each COPY source exists or is built. */
  private void checkDockerfile() throws IOException {
    if (!Files.isRegularFile(dir.resolve("Dockerfile"))) {
      problems.add(dir + " has no Dockerfile.");
      return;
    }
    String text = dockerfile();
    Matcher from = FROM.matcher(text);
    String image = from.find() ? from.group(1) : "missing";
    if (!image.startsWith("flink:" + flinkVersion)) {
      problems.add("Dockerfile: FROM must be Flink's official image at the root pom's version (flink:"
          + flinkVersion + "...), not " + image + ".");
    }
    Matcher copy = COPY.matcher(text);
    int copies = 0;
    while (copy.find()) {
      copies++;
      String source = copy.group(1);
      Path p = repoRoot.resolve(source).normalize();
      Matcher target = Pattern.compile("^jobs/target/([^/]+)$").matcher(source);
      if (target.matches()) {
        // a build output: the jobs module must be the one that makes it (mvn package)
        String pom = Files.readString(repoRoot.resolve("jobs/pom.xml"));
        if (!pom.contains("<outputFile>${project.build.directory}/" + target.group(1) + "</outputFile>")) {
          problems.add("Dockerfile: COPY " + source + " is no output of jobs/pom.xml (mvn package).");
        }
      } else if (!Files.exists(p)) {
        problems.add("Dockerfile: COPY source " + source + " does not exist (relative to the repository root).");
      }
    }
    if (copies == 0) {
      problems.add("Dockerfile: no COPY puts logbench's jar into the image.");
    }
  }

  private void require(String what, JsonNode spec, String field) {
    if (spec.path(field).asText().isBlank()) {
      problems.add(what + ": spec." + field + " is required by the operator and missing.");
    }
  }

  private static boolean has(JsonNode config, String... keys) {
    for (String k : keys) {
      if (!config.path(k).asText().isBlank()) {
        return true;
      }
    }
    return false;
  }
}
