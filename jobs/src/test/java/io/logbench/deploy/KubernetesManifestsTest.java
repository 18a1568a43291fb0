package io.logbench.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/ as the Flink Kubernetes Operator and kustomize would take it, checked without
 * a cluster by {@link ManifestChecker}: the real directory has no problem, and copies broken on
 * purpose (a missing file, a renamed object, a wrong field) each show the problem that would stop
 * or break the deployment.
 */
class KubernetesManifestsTest {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path K8S = ROOT.resolve("deploy/kubernetes");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir Path tmp;

  static List<String> problems(Path dir) throws IOException {
    return new ManifestChecker(ROOT, dir).check();
  }

  /** A copy of deploy/kubernetes/ to break. */
  Path copy() throws IOException {
    Path target = tmp.resolve("kubernetes");
    try (Stream<Path> files = Files.walk(K8S)) {
      for (Path f : files.toList()) {
        Path to = target.resolve(K8S.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    return target;
  }

  static void replace(Path file, String from, String to) throws IOException {
    String text = Files.readString(file);
    assertThat(text).as("%s contains the text to break", file).contains(from);
    Files.writeString(file, text.replace(from, to));
  }

  @Test
  void theManifestsAreConsistent() throws IOException {
    assertThat(problems(K8S)).isEmpty();
  }

  @Test
  void everyYamlDocumentParsesAndTheExpectedObjectsAreThere() throws IOException {
    List<String> objects = new ArrayList<>();
    try (Stream<Path> files = Files.walk(K8S)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        for (JsonNode doc : YAML.readerFor(JsonNode.class).readValues(f.toFile()).readAll().stream()
            .map(JsonNode.class::cast).toList()) {
          objects.add(doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText(""));
        }
      }
    }
    assertThat(objects).contains("FlinkDeployment/logbench-generate", "FlinkDeployment/logbench-verify",
        "FlinkDeployment/logbench-session", "FlinkSessionJob/logbench-session-generate",
        "ConfigMap/logbench-run", "Secret/logbench-secrets", "PersistentVolumeClaim/logbench-shared",
        "Kustomization/", "Deployment/logbench-canary", "ConfigMap/logbench-canary-run",
        "ConfigMap/logbench-canary-fluent-bit", "PersistentVolumeClaim/logbench-canary", "PodMonitor/logbench-canary",
        "PrometheusRule/logbench-canary");
  }

  @Test
  void theCanaryRunsBesideFluentBitAndItsRuleIsTheAlertRulesFile() throws IOException {
    JsonNode deployment = YAML.readTree(K8S.resolve("canary/deployment.yaml").toFile());
    JsonNode containers = deployment.at("/spec/template/spec/containers");
    assertThat(containers.get(0).path("args").get(0).asText()).isEqualTo("canary");
    assertThat(containers.get(1).path("image").asText()).startsWith("fluent/fluent-bit:");
    assertThat(deployment.at("/spec/template/spec/volumes").toString()).contains("\"emptyDir\"");
    JsonNode rule = YAML.readTree(K8S.resolve("canary/prometheus-rule.yaml").toFile());
    JsonNode rules = YAML.readTree(ROOT.resolve(ManifestChecker.CANARY_RULES).toFile());
    assertThat(rule.at("/spec/groups")).isEqualTo(rules.path("groups"));
    assertThat(rules.at("/groups/0/rules")).hasSize(5);
  }

  @Test
  void kubectlBuildsTheCanary() throws Exception {
    Path kubectl = Path.of("/usr/bin/kubectl");
    if (!Files.isExecutable(kubectl)) {
      throw io.logbench.testing.RealServers.skip("kubectl", "kustomize build not checked: no /usr/bin/kubectl");
    }
    Process p = new ProcessBuilder(kubectl.toString(), "kustomize", K8S.resolve("canary").toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<String> kinds = YAML.readerFor(JsonNode.class).readValues(out).readAll().stream()
        .map(JsonNode.class::cast).map(d -> d.path("kind").asText() + "/" + d.at("/metadata/name").asText()).toList();
    assertThat(kinds).containsExactlyInAnyOrder("ConfigMap/logbench-canary-run", "ConfigMap/logbench-canary-fluent-bit",
        "PersistentVolumeClaim/logbench-canary", "Deployment/logbench-canary", "PodMonitor/logbench-canary",
        "PrometheusRule/logbench-canary");
  }

  @Test
  void aCanaryRuleThatDriftsFromTheRulesFileIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("canary/prometheus-rule.yaml"), "canarySpotLostWindows[1h]", "canarySpotLostWindows[6h]");
    assertThat(problems(dir)).anyMatch(p -> p.contains("PrometheusRule logbench-canary")
        && p.contains("spec.groups differs from the groups of deploy/prometheus/logbench-canary.rules.yaml"));
  }

  @Test
  void aCanaryNobodyScrapesOrTailsIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("canary/deployment.yaml"), "0.0.0.0:9249", "127.0.0.1:9249");
    replace(dir.resolve("canary/fluent-bit-configmap.yaml"), "path: /var/log/logbench/canary.log",
        "path: /var/log/logbench/*.log");
    replace(dir.resolve("canary/pod-monitor.yaml"), "app.kubernetes.io/component: canary",
        "app.kubernetes.io/component: verify");
    List<String> problems = problems(dir);
    assertThat(problems)
        .anyMatch(p -> p.contains("--prometheus is 127.0.0.1:9249; expected 0.0.0.0:PORT"))
        .anyMatch(p -> p.contains("no Fluent Bit container of the pod tails the written file"
            + " /var/log/logbench/canary.log"));
    replace(dir.resolve("canary/deployment.yaml"), "127.0.0.1:9249", "0.0.0.0:9249");
    assertThat(problems(dir)).anyMatch(p -> p.contains("no PodMonitor of this build selects the pod's labels"));
  }

  @Test
  void aLokiBlockSelectingLabelsFluentBitDoesNotPutIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("canary/fluent-bit-configmap.yaml"), "labels: job=logbench-canary", "labels: job=canary");
    assertThat(problems(dir)).anyMatch(p -> p.contains("the loki block loki selects {\"job\":\"logbench-canary\"}, labels"
        + " no Fluent Bit loki output tailing the write app puts on its streams"));
  }

  @Test
  void aCanaryRunFileThatIsNotACanarysOrARunDirOffTheClaimIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("canary/run-configmap.yaml"), "    schedule: {kind: constant, rate: 10}\n",
        "    schedule: {kind: ladder, steps: [10, 20], step: 1m}\n");
    replace(dir.resolve("canary/deployment.yaml"), "            - /var/lib/logbench/canary\n",
        "            - /tmp/canary\n");
    replace(dir.resolve("canary/deployment.yaml"), "type: Recreate", "type: RollingUpdate");
    List<String> problems = problems(dir);
    assertThat(problems)
        .anyMatch(p -> p.contains("the run file /opt/logbench/canary.yaml is not valid"))
        .anyMatch(p -> p.contains("--run-dir /tmp/canary is on no PersistentVolumeClaim"))
        .anyMatch(p -> p.contains("spec.strategy.type Recreate"));
  }

  @Test
  void theApplicationsRunGenerateAndContinuousVerifyAndTheSessionJobRunsOnTheSessionCluster() throws IOException {
    JsonNode generate = YAML.readTree(K8S.resolve("generate.yaml").toFile());
    assertThat(generate.at("/spec/job/args").get(0).asText()).isEqualTo("generate");
    assertThat(generate.at("/spec/job/upgradeMode").asText()).isEqualTo("savepoint");
    assertThat(generate.at("/spec/flinkConfiguration").path("execution.checkpointing.dir").asText())
        .startsWith("file:///opt/logbench/shared/");
    JsonNode verify = YAML.readTree(K8S.resolve("verify.yaml").toFile());
    assertThat(verify.at("/spec/job/args").get(0).asText()).isEqualTo("verify");
    assertThat(verify.at("/spec/job/args").toString()).contains("\"--continuous\"");
    JsonNode sessionJob = YAML.readTree(K8S.resolve("session/session-job.yaml").toFile());
    assertThat(sessionJob.at("/spec/deploymentName").asText()).isEqualTo("logbench-session");
  }

  @Test
  void aMissingKustomizationResourceIsReported() throws IOException {
    Path dir = copy();
    Files.delete(dir.resolve("base/secret.yaml"));
    assertThat(problems(dir))
        .anyMatch(p -> p.contains("lists resources entry secret.yaml, which does not exist"))
        .anyMatch(p -> p.contains("refers to Secret logbench-secrets, which this build does not define"));
  }

  @Test
  void aFileNoKustomizationListsIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("kustomization.yaml"), "  - verify.yaml\n", "");
    assertThat(problems(dir)).anyMatch(p -> p.contains("verify.yaml is in no kustomization.yaml"));
  }

  @Test
  void aRenamedConfigMapOrClaimBreaksTheMountsThatNameIt() throws IOException {
    Path dir = copy();
    replace(dir.resolve("base/run-configmap.yaml"), "name: logbench-run", "name: logbench-run-file");
    replace(dir.resolve("base/pvc.yaml"), "name: logbench-shared", "name: logbench-volume");
    List<String> problems = problems(dir);
    assertThat(problems)
        .anyMatch(p -> p.contains("FlinkDeployment logbench-generate")
            && p.contains("refers to ConfigMap logbench-run, which this build does not define"))
        .anyMatch(p -> p.contains("refers to PersistentVolumeClaim logbench-shared"))
        .anyMatch(p -> p.contains("the run file /opt/logbench/run.yaml is not a key of a ConfigMap"))
        .anyMatch(p -> p.contains(
            "--run-dir /opt/logbench/shared/runs/quickstart is on no PersistentVolumeClaim"));
  }

  @Test
  void aSessionJobOnAMissingClusterOrJarServerIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("session/session-job.yaml"), "deploymentName: logbench-session",
        "deploymentName: logbench-sesion");
    replace(dir.resolve("session/jar-server.yaml"), "kind: Service\nmetadata:\n  name: logbench-jar-server",
        "kind: Service\nmetadata:\n  name: logbench-jars");
    assertThat(problems(dir))
        .anyMatch(p -> p.contains("spec.deploymentName \"logbench-sesion\" names no FlinkDeployment"))
        .anyMatch(p -> p.contains("jarURI host logbench-jar-server.default.svc names no Service of this build"));
  }

  @Test
  void aSessionJobPointedAtAnApplicationClusterOrALocalJarIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("session/session-cluster.yaml"), "  taskManager:\n",
        "  job:\n    jarURI: local:///opt/x.jar\n  taskManager:\n");
    replace(dir.resolve("session/session-job.yaml"),
        "jarURI: http://logbench-jar-server.default.svc/logbench-job.jar",
        "jarURI: local:///opt/flink/usrlib/logbench-job.jar");
    assertThat(problems(dir))
        .anyMatch(p -> p.contains("is an application cluster (it has a job), not a session cluster"))
        .anyMatch(p -> p.contains("the operator fetches a session job's jar itself"));
  }

  @Test
  void wrongOperatorFieldsAreReported() throws IOException {
    Path dir = copy();
    Path generate = dir.resolve("generate.yaml");
    replace(generate, "flinkVersion: v2_2", "flinkVersion: v1_20");
    replace(generate, "  serviceAccount: flink\n", "");
    replace(generate, "entryClass: io.logbench.cli.Main", "entryClass: io.logbench.cli.Mian");
    replace(generate, "      - generate\n", "      - generat\n");
    replace(generate, "jarURI: local:///opt/flink/usrlib/logbench-job.jar",
        "jarURI: local:///opt/flink/lib/logbench.jar");
    replace(generate, "      memory: 2048m\n", "      memory: lots\n");
    assertThat(problems(dir))
        .anyMatch(p -> p.contains("spec.flinkVersion is \"v1_20\"; expected v2_2"))
        .anyMatch(p -> p.contains("spec.serviceAccount is required"))
        .anyMatch(p -> p.contains("spec.job.entryClass is \"io.logbench.cli.Mian\""))
        .anyMatch(p -> p.contains("spec.job.args must start with a logbench command"))
        .anyMatch(p -> p.contains("is not where deploy/kubernetes/Dockerfile copies a jar"))
        .anyMatch(p -> p.contains("spec.taskManager.resource.memory is \"lots\""));
  }

  @Test
  void anInvalidRunFileInTheConfigMapIsReportedWithLogbenchsOwnMessage() throws IOException {
    Path dir = copy();
    replace(dir.resolve("base/run-configmap.yaml"), "    window: 1m\n", "    window: 7m\n");
    assertThat(problems(dir)).anyMatch(p -> p.contains("the run file /opt/logbench/run.yaml is not valid")
        && p.contains("window: \"7m\" is not valid"));
  }

  @Test
  void aDockerfileCopyOfAMissingFileIsReported() throws IOException {
    Path dir = copy();
    replace(dir.resolve("Dockerfile"), "COPY --chown=flink:flink jobs/target/logbench-job.jar",
        "COPY --chown=flink:flink jobs/target/logbench-cluster.jar");
    Files.writeString(dir.resolve("Dockerfile"), "COPY config/no-such-run.yaml /opt/logbench/run.yaml\n",
        java.nio.file.StandardOpenOption.APPEND);
    assertThat(problems(dir))
        .anyMatch(p -> p.contains("COPY jobs/target/logbench-cluster.jar is no output of jobs/pom.xml"))
        .anyMatch(p -> p.contains("COPY source config/no-such-run.yaml does not exist"));
  }
}
