package io.logbench.sink.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import io.logbench.sink.files.internal.DayFileAppender;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files backend's block and its day-file appender, without Flink. */
class FilesBackendTest {

  private static ConfigNode block(String json) throws Exception {
    return new ConfigNode(new ObjectMapper().readTree(json), "backends[0]");
  }

  @Test
  void readsItsKeysAndAcceptsTheDeliveryKeys() throws Exception {
    FilesBackend b =
        Specs.parse(FilesBackend.TYPE, 
            block("{\"kind\":\"files\",\"dir\":\"/tmp/logdir\",\"delivery\":\"at-least-once\",\"in_flight\":4,"
                + "\"retry\":{},\"timeout\":\"5s\"}"));
    assertThat(b).isEqualTo(new FilesBackend("files", "/tmp/logdir"));
    assertThat(b.kind()).isEqualTo("files");
  }

  @Test
  void needsADirAndRejectsUnknownKeys() {
    assertThatThrownBy(() -> Specs.parse(FilesBackend.TYPE, block("{\"kind\":\"files\",\"name\":\"f\"}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("backends[0].dir");
    assertThatThrownBy(() -> Specs.parse(FilesBackend.TYPE, block("{\"kind\":\"files\",\"dir\":\"d\",\"url\":\"x\"}")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[0].url: unknown key; expected one of kind, name, query_timeout, delivery, in_flight, timeout, retry, thresholds, visibility, dir.");
  }

  @Test
  void aDirectoryOnAnObjectStoreIsRefusedNotWrittenLocally() throws Exception {
    // the day files are appended to: a URI directory would otherwise be a local folder named "s3:"
    assertThatThrownBy(() -> Specs.parse(FilesBackend.TYPE,
        block("{\"kind\":\"files\",\"name\":\"f\",\"dir\":\"s3://bucket/logs\"}")))
        .hasMessage("backends[0].dir: \"s3://bucket/logs\" is not valid; expected a local or mounted directory path (the files"
            + " backend appends to its day files, which object stores and other file systems reached by URI do not"
            + " allow; on a cluster, mount shared storage at the same path on every machine).");
    FilesBackend local = (FilesBackend) Specs.parse(FilesBackend.TYPE,
        block("{\"kind\":\"files\",\"name\":\"f\",\"dir\":\"file:///data/logs\"}"));
    assertThat(local.dir()).isEqualTo("/data/logs");
  }

  @Test
  void aDayChangePadsTheOldDayAndStartsTheNewOneAtMidnight(@TempDir Path dir) throws Exception {
    long t = Instant.parse("2021-05-01T23:58:30Z").toEpochMilli();
    try (DayFileAppender a = new DayFileAppender(dir, ZoneOffset.UTC)) {
      a.append(batch(new long[] {t, t + 1}, "a", "b"));
      a.append(batch(new long[] {t + 160_000}, "c"));
    }
    // as SeedLayout lays out 23:58 to 00:02: 23:59 and 00:00 are empty minutes
    assertThat(read(dir, "2021-05-01.log")).isEqualTo("a\nb\n");
    assertThat(read(dir, "2021-05-02.log")).isEqualTo("\nc");
  }

  @Test
  void aRestoreTruncatesAndDeletesWhatCameAfterTheSnapshot(@TempDir Path dir) throws Exception {
    long t = Instant.parse("2021-05-01T23:58:30Z").toEpochMilli();
    DayFileAppender.State state;
    try (DayFileAppender a = new DayFileAppender(dir, ZoneOffset.UTC)) {
      a.append(batch(new long[] {t}, "a"));
      state = a.snapshot();
      a.append(batch(new long[] {t + 1, t + 160_000}, "b", "c"));
    }
    try (DayFileAppender a = new DayFileAppender(dir, ZoneOffset.UTC)) {
      a.restore(state);
      assertThat(read(dir, "2021-05-01.log")).isEqualTo("a");
      assertThat(Files.exists(dir.resolve("2021-05-02.log"))).isFalse();
      a.append(batch(new long[] {t + 1, t + 160_000}, "b", "c"));
    }
    assertThat(read(dir, "2021-05-01.log")).isEqualTo("a\nb\n");
    assertThat(read(dir, "2021-05-02.log")).isEqualTo("\nc");
  }

  private static LineBatch batch(long[] millis, String... lines) {
    LineBatch b = new LineBatch();
    b.reset(0, 0);
    for (int i = 0; i < lines.length; i++) {
      byte[] bytes = lines[i].getBytes(StandardCharsets.UTF_8);
      b.append(bytes, 0, bytes.length, millis[i], 0);
    }
    return b;
  }

  private static String read(Path dir, String name) throws Exception {
    return Files.readString(dir.resolve(name));
  }
  @Test
  void theChecksBeforeARunWarnAboutDayFilesOfTheRunsDaysOnly(@TempDir Path dir) throws Exception {
    FilesBackend files = new FilesBackend("files", dir.resolve("logdir").toString());
    ZoneId zone = ZoneId.of("America/Sao_Paulo");
    long may1 = LocalDate.of(2021, 5, 1).atStartOfDay(zone).toInstant().toEpochMilli();
    long day = 86_400_000L;
    // lines from May 1st 23:00 to May 3rd 01:00 (local): the run writes May 1st, 2nd and 3rd
    long[] span = {may1 + 23 * 3_600_000L, may1 + 2 * day + 3_600_000L};
    Preflight before = Preflight.of(RunContext.of(new AppJsonStreams(1)).withRunId("run-b"), span, 60_000L, zone,
        span[0], System.currentTimeMillis());
    assertThat(files.preflight(before)).as("no directory yet").isEmpty();
    Files.createDirectories(dir.resolve("logdir"));
    Files.writeString(dir.resolve("logdir").resolve("2021-04-30.log"), "an earlier run's day");
    Files.writeString(dir.resolve("logdir").resolve("2021-05-04.log"), "an earlier run's day");
    assertThat(files.preflight(before)).as("days the run does not write").isEmpty();
    Files.writeString(dir.resolve("logdir").resolve("2021-05-02.log"), "an earlier run's day");
    Files.writeString(dir.resolve("logdir").resolve("2021-05-03.log"), "an earlier run's day");
    assertThat(files.preflight(before)).containsExactly(
        "Backend 'files': " + dir.resolve("logdir") + " already holds day files of the run's days (2021-05-02.log,"
            + " 2021-05-03.log), from another run; the run replaces each when it writes that day's first line,"
            + " losing their lines, and until then verify counts them as this run's (day files carry no run id)."
            + " Use an empty directory per run.");
    assertThat(files.capabilities().runFilter()).isFalse();
  }
}
