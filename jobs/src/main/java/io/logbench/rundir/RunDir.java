package io.logbench.rundir;

import io.logbench.config.ConfigException;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A run directory (or any directory logbench keeps files in beside it, such as the checkpoint
 * directory), named by a string: a plain path or a {@code file:} URI is a local directory, read and
 * written through {@code java.nio} ({@link LocalRunDir}); any other URI ({@code s3://bucket/runs/x},
 * {@code hdfs://nn/runs/x}, a shared file system's scheme) goes through Flink's file systems ({@link
 * FlinkRunDir}), so it works wherever the Flink process that writes it has that file system (a
 * plugin on a cluster).
 *
 * <p>Names are relative to the directory, {@code /}-separated ({@code ledger/web/ledger.csv}). The
 * operations are the ones every file system has, object stores included: read a whole file, write
 * a whole file (replacing it at once: a reader sees the old or the new content, never half), create
 * a file only if it does not exist, list, delete. There is no append, truncate, in-place rewrite or
 * rename: what the run directory appends to in place on a local disk is laid out as files written
 * once when the directory is not local (see {@link #local}).
 */
public abstract class RunDir implements Serializable {

  private static final long serialVersionUID = 1L;

  /** A URI scheme of at least two characters (so {@code C:/x} stays a path), then {@code :/}. */
  private static final Pattern URI_SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]+:/.*");

  RunDir() {}

  /**
   * The directory {@code location} names: a plain path or {@code file:} URI is local, any other URI
   * goes through Flink's file systems.
   *
   * @throws ConfigException when {@code location} is empty or not a valid URI
   */
  public static RunDir of(String location) {
    if (location == null || location.isBlank()) {
      throw new ConfigException("A run directory of '" + location + "' is empty; expected a path or a URI such as"
          + " s3://bucket/runs/name.");
    }
    if (!isUri(location)) {
      return new LocalRunDir(Path.of(location));
    }
    URI uri;
    try {
      uri = new URI(location);
    } catch (URISyntaxException e) {
      throw new ConfigException("The directory " + location + " is not a valid URI (" + e.getMessage()
          + "); expected a path or a URI such as s3://bucket/runs/name.");
    }
    if ("file".equalsIgnoreCase(uri.getScheme())) {
      return new LocalRunDir(Path.of(uri));
    }
    return new FlinkRunDir(uri);
  }

  /** The local directory {@code dir}. */
  public static RunDir of(Path dir) {
    return new LocalRunDir(dir);
  }

  /** Whether {@code location} is a URI (with a scheme, {@code file:} included) rather than a plain path. */
  public static boolean isUri(String location) {
    return URI_SCHEME.matcher(location).matches();
  }

  /**
   * Whether {@code location} names a directory that is not on a local (or mounted) disk: a URI of
   * another scheme than {@code file}.
   */
  public static boolean isRemote(String location) {
    return location != null && isUri(location) && !location.regionMatches(true, 0, "file:", 0, 5);
  }

  /** The directory on a local (or mounted) disk, or empty when it goes through Flink's file systems. */
  public abstract Optional<Path> local();

  /** The same directory with a local path made absolute (to hand to tasks, whose working directory differs). */
  public abstract RunDir absolute();

  /** The directory as printed in messages: the path as given, or the URI. */
  public abstract String location();

  /** The directory as a URI Flink takes ({@code file:///...} for a local one). */
  public abstract String uri();

  /** The file {@code name} as printed in messages. */
  public abstract String describe(String name);

  /** The sub-directory {@code name}. */
  public abstract RunDir resolve(String name);

  /** Whether the directory exists (for an object store: holds at least one file). */
  public abstract boolean exists() throws IOException;

  /** Whether the file {@code name} exists. */
  public abstract boolean exists(String name) throws IOException;

  /**
   * The whole content of the file {@code name}.
   *
   * @throws java.nio.file.NoSuchFileException when it does not exist
   */
  public abstract byte[] read(String name) throws IOException;

  /**
   * The file {@code name} as a stream, for one too large to hold whole.
   *
   * @throws java.nio.file.NoSuchFileException when it does not exist
   */
  public abstract java.io.InputStream open(String name) throws IOException;

  /** The last element of the directory's name ({@code x} for {@code s3://b/runs/x}). */
  public String name() {
    String l = location();
    while (l.endsWith("/") && l.length() > 1) {
      l = l.substring(0, l.length() - 1);
    }
    int slash = l.lastIndexOf('/');
    return slash < 0 ? l : l.substring(slash + 1);
  }

  /** {@link #read} as UTF-8 text. */
  public String readString(String name) throws IOException {
    return new String(read(name), StandardCharsets.UTF_8);
  }

  /**
   * Writes the file {@code name} whole, replacing any earlier one at once (a reader sees the old
   * content or the new, never part of it), creating the directories it needs.
   */
  public abstract void write(String name, byte[] content) throws IOException;

  /** {@link #write} of UTF-8 text. */
  public void writeString(String name, String content) throws IOException {
    write(name, content.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Writes the file {@code name} whole only if it does not exist yet: the one write an object
   * store's files are meant to get.
   *
   * @throws java.nio.file.FileAlreadyExistsException when it exists
   */
  public abstract void create(String name, byte[] content) throws IOException;

  /**
   * The names of the files directly in the sub-directory {@code name} ({@code ""} for this one),
   * sorted; none when it does not exist.
   */
  public abstract List<String> files(String name) throws IOException;

  /** The names of the sub-directories directly in {@code name} ({@code ""} for this one), sorted. */
  public abstract List<String> directories(String name) throws IOException;

  /** When the file {@code name} was last written, in epoch milliseconds. */
  public abstract long modifiedMillis(String name) throws IOException;

  /** Deletes the file or the whole sub-directory {@code name}; nothing when it does not exist. */
  public abstract void delete(String name) throws IOException;

  /** Creates the directory if needed (for an object store, where directories are implicit, nothing). */
  public abstract void createDirectories() throws IOException;

  /** {@link #exists(String)} for callers that cannot throw a checked exception. */
  public boolean existsUnchecked(String name) {
    try {
      return exists(name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RunDir r && r.getClass() == getClass() && r.location().equals(location());
  }

  @Override
  public int hashCode() {
    return location().hashCode();
  }

  @Override
  public String toString() {
    return location();
  }
}
