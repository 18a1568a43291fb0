package io.logbench.rundir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.ConfigException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystem.WriteMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RunDir} on a local directory and on the object store emulator ({@link
 * ObjectStoreEmulator}, through Flink's file systems): the same operations behave the same, and
 * the emulator refuses what an object store cannot do.
 */
class RunDirTest {

  @TempDir Path tmp;

  private final String bucket = "rundir-test-" + UUID.randomUUID().toString().substring(0, 8);

  @AfterEach
  void dropBucket() throws Exception {
    ObjectStoreEmulator.dropBucket(bucket);
  }

  @Test
  void pathsAndFileUrisAreLocalAndOtherUrisGoThroughFlink() {
    assertThat(RunDir.of("runs/x").local()).contains(Path.of("runs/x"));
    assertThat(RunDir.of("/data/runs/x").local()).contains(Path.of("/data/runs/x"));
    assertThat(RunDir.of("file:///data/runs/x").local()).contains(Path.of("/data/runs/x"));
    assertThat(RunDir.of("s3://bucket/runs/x").local()).isEmpty();
    assertThat(RunDir.of("s3://bucket/runs/x/").location()).isEqualTo("s3://bucket/runs/x");
    assertThat(RunDir.of("hdfs://nn:8020/runs/x").resolve("ledger/web").describe("ledger.csv"))
        .isEqualTo("hdfs://nn:8020/runs/x/ledger/web/ledger.csv");
    assertThat(RunDir.isRemote("s3://b/x")).isTrue();
    assertThat(RunDir.isRemote("file:///x")).isFalse();
    assertThat(RunDir.isRemote("/x")).isFalse();
    assertThat(RunDir.isRemote("runs/a:b")).isFalse();
    assertThat(RunDir.of("s3://bucket/runs/x").name()).isEqualTo("x");
  }

  @Test
  void aSchemeNoFileSystemServesIsAClearError() {
    RunDir dir = RunDir.of("nosuchfs://bucket/runs/x");
    assertThatThrownBy(() -> dir.exists("run.json"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("The directory nosuchfs://bucket/runs/x is on a file system Flink has no"
            + " implementation for in this process")
        .hasMessageContaining("expected a local path, or a URI whose scheme a Flink file system serves here");
  }

  @Test
  void aLocalDirectory() throws Exception {
    behavesAsADirectory(RunDir.of(tmp.resolve("run")));
  }

  @Test
  void anObjectStoreThroughFlink() throws Exception {
    RunDir dir = RunDir.of(ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/one");
    assertThat(dir.local()).isEmpty();
    int refusedBefore = ObjectStoreEmulator.refusals().size();
    behavesAsADirectory(dir);
    // RunDir asked for nothing the store refuses: a create over an existing file stops at RunDir's check
    assertThat(ObjectStoreEmulator.refusals().subList(refusedBefore, ObjectStoreEmulator.refusals().size()))
        .isEmpty();
    // the store holds what is left, as objects (the emulator's files)
    assertThat(ObjectStoreEmulator.objectFile(bucket, "runs/one/run.json")).hasContent("{\"a\":1}");
    assertThat(ObjectStoreEmulator.objectFile(bucket, "runs/one/a")).doesNotExist();
  }

  private static void behavesAsADirectory(RunDir dir) throws Exception {
    dir.createDirectories();
    assertThat(dir.exists("run.json")).isFalse();
    assertThatThrownBy(() -> dir.read("run.json")).isInstanceOf(NoSuchFileException.class);
    assertThat(dir.files("")).isEmpty();
    assertThat(dir.files("nothing/here")).isEmpty();

    dir.writeString("run.json", "{}");
    dir.writeString("run.json", "{\"a\":1}");
    assertThat(dir.readString("run.json")).isEqualTo("{\"a\":1}");
    assertThat(dir.exists()).isTrue();
    assertThat(dir.exists("run.json")).isTrue();

    dir.create("a/b.txt", "two".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> dir.create("a/b.txt", "three".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(dir.readString("a/b.txt")).isEqualTo("two");
    dir.create("a/a.txt", new byte[0]);
    dir.create("a/c/d.txt", new byte[] {1});
    assertThat(dir.files("a")).containsExactly("a.txt", "b.txt");
    assertThat(dir.directories("a")).containsExactly("c");
    assertThat(dir.directories("")).containsExactly("a");
    assertThat(dir.resolve("a").files("c")).containsExactly("d.txt");
    assertThat(dir.resolve("a").exists()).isTrue();
    try (var in = dir.open("a/c/d.txt")) {
      assertThat(in.readAllBytes()).containsExactly(1);
    }
    assertThat(dir.modifiedMillis("a/b.txt")).isPositive();

    dir.delete("a/c");
    assertThat(dir.directories("a")).isEmpty();
    dir.delete("a/a.txt");
    assertThat(dir.files("a")).containsExactly("b.txt");
    dir.delete("no/such/thing");
    dir.delete("a");
    assertThat(dir.exists("a/b.txt")).isFalse();
    assertThat(dir.files("")).containsExactly("run.json");
  }

  @Test
  void theEmulatorRefusesWhatAnObjectStoreCannotDo() throws Exception {
    URI root = URI.create(ObjectStoreEmulator.SCHEME + "://" + bucket + "/");
    FileSystem fs = FileSystem.get(root);
    org.apache.flink.core.fs.Path a = new org.apache.flink.core.fs.Path(root + "x/a");
    // an object appears whole, when its writer closes
    try (OutputStream out = fs.create(a, WriteMode.NO_OVERWRITE)) {
      out.write("half".getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(fs.exists(a)).isFalse();
    }
    assertThat(fs.exists(a)).isTrue();
    assertThatThrownBy(() -> fs.create(a, WriteMode.NO_OVERWRITE)).isInstanceOf(FileAlreadyExistsException.class);
    assertThatThrownBy(() -> fs.rename(a, new org.apache.flink.core.fs.Path(root + "x/b")))
        .hasMessageContaining("an object store has no rename");
    assertThat(ObjectStoreEmulator.refusals()).anySatisfy(r -> assertThat(r).startsWith("rename " + a));
    // two writers of one key: the second to close loses under NO_OVERWRITE
    org.apache.flink.core.fs.Path c = new org.apache.flink.core.fs.Path(root + "x/c");
    OutputStream first = fs.create(c, WriteMode.NO_OVERWRITE);
    OutputStream second = fs.create(c, WriteMode.NO_OVERWRITE);
    first.close();
    assertThatThrownBy(second::close).isInstanceOf(FileAlreadyExistsException.class);
    // directories are prefixes: mkdirs makes nothing, the last object gone takes its prefix along
    fs.mkdirs(new org.apache.flink.core.fs.Path(root + "empty"));
    assertThat(fs.exists(new org.apache.flink.core.fs.Path(root + "empty"))).isFalse();
    fs.delete(a, false);
    fs.delete(c, false);
    assertThat(fs.exists(new org.apache.flink.core.fs.Path(root + "x"))).isFalse();
    assertThat(Files.exists(ObjectStoreEmulator.objectFile(bucket, "x"))).isFalse();
  }
}
