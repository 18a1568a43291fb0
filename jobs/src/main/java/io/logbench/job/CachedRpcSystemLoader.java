package io.logbench.job;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.classloading.SubmoduleClassLoader;
import org.apache.flink.runtime.rpc.CleanupOnCloseRpcSystem;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

/**
 * Loads Flink's Pekko RPC system from a copy of its jar kept in a cache folder, instead of copying
 * the 21 MB {@code flink-rpc-akka.jar} out of the class path into a new temporary file at every
 * start as Flink's own loader ({@code PekkoRpcSystemLoader}) does: that copy, inflating the jar
 * from logbench's, was about 0.2 CPU-s of every embedded run's start (docs/benchmarks.md, eighth
 * round). The copy is named by the jar entry's CRC and size, so another Flink build gets its own,
 * and written to a temporary file moved into place, so runs starting together never read a
 * half-written one.
 *
 * <p>Each load reads the copy through a path of its own: a hard link to it (a copy where links
 * cannot be made) in a folder {@code run-<pid>-*} deleted when the RPC system closes, as Flink's
 * temporary file is. The JDK shares one open jar among every reader of a jar URL, and closing one
 * RPC system's class loader closes that jar under a run starting at the same moment in the same
 * JVM: "Could not create actor system ... reference.conf ... read error: Stream closed" in a test
 * that ran {@code dataset} twice. The folders of processes that ended without closing are deleted
 * by the next load.
 *
 * <p>It goes first ({@link #getLoadPriority} below Flink's 0); when it cannot (no such jar on the
 * class path, a folder it cannot write), it throws and Flink's loader is used as before.
 *
 * <p>Folder: {@code $LOGBENCH_CACHE_DIR/rpc}, else {@code ~/.cache/logbench/rpc}.
 */
public final class CachedRpcSystemLoader implements RpcSystemLoader {

  static final String RESOURCE = "flink-rpc-akka.jar";

  @Override
  public int getLoadPriority() {
    return -1;
  }

  @Override
  public RpcSystem loadRpcSystem(Configuration config) {
    return load(cacheDir());
  }

  /** The RPC system, from the copy of its jar in {@code dir}. */
  static RpcSystem load(Path dir) {
    ClassLoader flink = RpcSystem.class.getClassLoader();
    URL resource = flink.getResource(RESOURCE);
    if (resource == null) {
      throw new RpcLoaderException("No " + RESOURCE + " on the class path.");
    }
    Path run = null;
    try {
      Path jar = cached(resource, dir);
      removeEnded(dir);
      run = Files.createTempDirectory(dir, RUN_PREFIX + ProcessHandle.current().pid() + "-");
      Path own = ownPath(jar, run);
      SubmoduleClassLoader loader = new SubmoduleClassLoader(new URL[] {own.toUri().toURL()}, flink);
      Iterator<RpcSystem> systems = ServiceLoader.load(RpcSystem.class, loader).iterator();
      if (!systems.hasNext()) {
        loader.close();
        throw new RpcLoaderException("No RpcSystem in " + jar + ".");
      }
      // closing deletes this load's folder; the copy stays for the next run
      RpcSystem system = new CleanupOnCloseRpcSystem(systems.next(), loader, run);
      run = null;
      return system;
    } catch (IOException e) {
      throw new RpcLoaderException("Could not keep a copy of " + resource + ": " + e.getMessage(), e);
    } finally {
      if (run != null) {
        deleteQuietly(run);
      }
    }
  }

  static final String RUN_PREFIX = "run-";

  /** {@code jar} under a path of this load's own in {@code run}: a hard link, else a copy. */
  static Path ownPath(Path jar, Path run) throws IOException {
    Path own = run.resolve(jar.getFileName());
    try {
      Files.createLink(own, jar);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(jar, own);
    }
    return own;
  }

  /** Deletes the load folders in {@code dir} of processes that are no longer running. */
  static void removeEnded(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (!name.startsWith(RUN_PREFIX) || !Files.isDirectory(f)) {
          continue;
        }
        int dash = name.indexOf('-', RUN_PREFIX.length());
        long pid;
        try {
          pid = Long.parseLong(name.substring(RUN_PREFIX.length(), dash < 0 ? name.length() : dash));
        } catch (NumberFormatException e) {
          continue;
        }
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
          continue;
        }
        deleteQuietly(f);
      }
    }
  }

  private static void deleteQuietly(Path folder) {
    try (var files = Files.list(folder)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(folder);
    } catch (IOException e) {
      // another load deletes it later
    }
  }

  /** The copy of {@code resource} in {@code dir}, written first when there is none. */
  static Path cached(URL resource, Path dir) throws IOException {
    URLConnection connection = resource.openConnection();
    String name;
    long size;
    if (connection instanceof JarURLConnection) {
      // a jar entry's CRC and size are in the jar's directory: no need to read the entry for them
      JarEntry entry = ((JarURLConnection) connection).getJarEntry();
      size = entry.getSize();
      name = "flink-rpc-" + Long.toHexString(entry.getCrc()) + "-" + size + ".jar";
    } else {
      throw new IOException("it is not in a jar (" + resource + ")");
    }
    Path target = dir.resolve(name);
    if (Files.isRegularFile(target) && Files.size(target) == size) {
      return target;
    }
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, name, ".tmp");
    try {
      try (InputStream in = connection.getInputStream()) {
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return target;
  }

  /** {@code $LOGBENCH_CACHE_DIR/rpc}, else {@code ~/.cache/logbench/rpc}. */
  static Path cacheDir() {
    String dir = System.getenv("LOGBENCH_CACHE_DIR");
    Path base = dir != null && !dir.isBlank() ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".cache", "logbench");
    return base.resolve("rpc");
  }
}
