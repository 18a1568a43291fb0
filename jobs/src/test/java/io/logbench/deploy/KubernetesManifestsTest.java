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
        "Kustomization/");
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
