package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RPC system's jar copied once into a cache folder, and loaded from there. */
class CachedRpcSystemLoaderTest {

  @TempDir
  Path dir;

  @Test
  void copiesTheEntryOnceNamedByItsCrcAndSize() throws IOException {
    byte[] content = "not really a jar, only its bytes".getBytes();
    URL entry = entryIn(dir.resolve("outer.jar"), "inner.jar", content);
    Path cache = dir.resolve("cache");

    Path copy = CachedRpcSystemLoader.cached(entry, cache);

    CRC32 crc = new CRC32();
    crc.update(content);
    assertThat(copy.getFileName().toString())
        .isEqualTo("flink-rpc-" + Long.toHexString(crc.getValue()) + "-" + content.length + ".jar");
    assertThat(Files.readAllBytes(copy)).isEqualTo(content);
    // the second run uses the copy as it is
    FileTime old = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(copy, old);
    assertThat(CachedRpcSystemLoader.cached(entry, cache)).isEqualTo(copy);
    assertThat(Files.getLastModifiedTime(copy)).isEqualTo(old);
    try (var files = Files.list(cache)) {
      assertThat(files).containsExactly(copy); // no temporary file left behind
    }
  }

  @Test
  void aCopyOfTheWrongSizeIsWrittenAgain() throws IOException {
    byte[] content = "the whole entry".getBytes();
    URL entry = entryIn(dir.resolve("outer.jar"), "inner.jar", content);
    Path cache = dir.resolve("cache");
    Path copy = CachedRpcSystemLoader.cached(entry, cache);
    Files.write(copy, "cut".getBytes());

    assertThat(Files.readAllBytes(CachedRpcSystemLoader.cached(entry, cache))).isEqualTo(content);
  }

  @Test
  void aResourceOutsideAJarIsRefusedSoFlinksOwnLoaderIsUsed() throws IOException {
    Path plain = Files.write(dir.resolve("plain.jar"), new byte[] {1, 2, 3});
    assertThatThrownBy(() -> CachedRpcSystemLoader.cached(plain.toUri().toURL(), dir.resolve("cache")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not in a jar");
  }

  @Test
  void loadsFlinksRpcSystemFromTheCopy() throws Exception {
    Path cache = dir.resolve("cache");
    try (RpcSystem rpc = CachedRpcSystemLoader.load(cache)) {
      assertThat(rpc.getMaximumMessageSizeInBytes(new org.apache.flink.configuration.Configuration())).isPositive();
    }
    try (var files = Files.list(cache)) {
      assertThat(files.map(f -> f.getFileName().toString())).singleElement().asString().startsWith("flink-rpc-");
    }
  }

  @Test
  void eachLoadReadsTheCopyThroughAPathOfItsOwnDeletedWhenItCloses() throws Exception {
    Path cache = dir.resolve("cache");
    org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
    RpcSystem first = CachedRpcSystemLoader.load(cache);
    try (RpcSystem second = CachedRpcSystemLoader.load(cache)) {
      List<Path> runs = runFolders(cache);
      assertThat(runs).hasSize(2);
      for (Path run : runs) {
        try (var files = Files.list(run)) {
          Path own = files.collect(Collectors.toList()).get(0);
          assertThat(own.getFileName().toString()).startsWith("flink-rpc-");
          assertThat(Files.size(own)).isEqualTo(Files.size(cache.resolve(own.getFileName())));
        }
      }
      first.close();
      assertThat(runFolders(cache)).hasSize(1);
      // the second still starts an actor system (reading its reference.conf) after the first closed
      var service = second.localServiceBuilder(conf).withBindAddress("127.0.0.1").withBindPort(0).createAndStart();
      service.closeAsync().get();
    }
    assertThat(runFolders(cache)).isEmpty();
  }

  @Test
  void loadFoldersOfEndedProcessesAreDeletedAndThoseOfLiveOnesKept() throws Exception {
    Path cache = Files.createDirectories(dir.resolve("cache"));
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path gone = Files.createDirectories(cache.resolve("run-" + ended.pid() + "-1"));
    Files.writeString(gone.resolve("flink-rpc-x.jar"), "link");
    Path live = Files.createDirectories(cache.resolve("run-" + ProcessHandle.current().pid() + "-2"));
    Path other = Files.createDirectories(cache.resolve("runaway"));

    CachedRpcSystemLoader.removeEnded(cache);

    assertThat(gone).doesNotExist();
    assertThat(live).isDirectory();
    assertThat(other).isDirectory();
  }

  private static List<Path> runFolders(Path cache) throws IOException {
    try (var files = Files.list(cache)) {
      return files.filter(f -> f.getFileName().toString().startsWith("run-")).collect(Collectors.toList());
    }
  }

  private static URL entryIn(Path jar, String name, byte[] content) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
      j.putNextEntry(new JarEntry(name));
      j.write(content);
      j.closeEntry();
    }
    return new URL("jar:" + jar.toUri() + "!/" + name);
  }
}
