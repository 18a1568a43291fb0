package io.logbench.rundir;

import io.logbench.config.ConfigException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystem.WriteMode;
import org.apache.flink.core.fs.UnsupportedFileSystemSchemeException;

/**
 * A run directory on any file system Flink has for its URI's scheme ({@link FileSystem#get}): an
 * object store ({@code s3://}), HDFS, or any other plugin. Only what an object store can do is
 * used: a whole file is written by one {@code create} (a PUT), {@link #create} asks for {@link
 * WriteMode#NO_OVERWRITE} (and checks first, as some object stores take that mode for a hint), and
 * nothing is appended, truncated, rewritten in place or renamed.
 */
final class FlinkRunDir extends RunDir {

  private static final long serialVersionUID = 1L;

  /** The directory's URI, without a trailing slash. */
  private final String uri;

  FlinkRunDir(URI uri) {
    String s = uri.toString();
    this.uri = s.endsWith("/") && s.length() > 1 ? s.substring(0, s.length() - 1) : s;
  }

  private org.apache.flink.core.fs.Path path(String name) {
    return new org.apache.flink.core.fs.Path(name.isEmpty() ? uri : uri + "/" + name);
  }

  private FileSystem fs() throws IOException {
    try {
      return FileSystem.get(URI.create(uri));
    } catch (UnsupportedFileSystemSchemeException e) {
      throw new ConfigException("The directory " + uri + " is on a file system Flink has no implementation for in"
          + " this process (" + e.getMessage() + "); expected a local path, or a URI whose scheme a Flink file"
          + " system serves here: in a Flink cluster its plugin in the plugins directory, for the logbench"
          + " command line its jar on the class path (such as flink-s3-fs-presto for s3://).");
    }
  }

  @Override
  public Optional<java.nio.file.Path> local() {
    return Optional.empty();
  }

  @Override
  public RunDir absolute() {
    return this;
  }

  @Override
  public String location() {
    return uri;
  }

  @Override
  public String uri() {
    return uri;
  }

  @Override
  public String describe(String name) {
    return name.isEmpty() ? uri : uri + "/" + name;
  }

  @Override
  public RunDir resolve(String name) {
    return new FlinkRunDir(URI.create(describe(name)));
  }

  @Override
  public boolean exists() throws IOException {
    return fs().exists(path(""));
  }

  @Override
  public boolean exists(String name) throws IOException {
    try {
      return !fs().getFileStatus(path(name)).isDir();
    } catch (FileNotFoundException e) {
      return false;
    }
  }

  @Override
  public byte[] read(String name) throws IOException {
    try (InputStream in = fs().open(path(name))) {
      return in.readAllBytes();
    } catch (FileNotFoundException e) {
      throw new NoSuchFileException(describe(name));
    }
  }

  @Override
  public InputStream open(String name) throws IOException {
    try {
      return fs().open(path(name));
    } catch (FileNotFoundException e) {
      throw new NoSuchFileException(describe(name));
    }
  }

  @Override
  public void write(String name, byte[] content) throws IOException {
    try (OutputStream out = fs().create(path(name), WriteMode.OVERWRITE)) {
      out.write(content);
    }
  }

  @Override
  public void create(String name, byte[] content) throws IOException {
    FileSystem fs = fs();
    org.apache.flink.core.fs.Path p = path(name);
    if (fs.exists(p)) {
      throw new FileAlreadyExistsException(describe(name));
    }
    try (OutputStream out = fs.create(p, WriteMode.NO_OVERWRITE)) {
      out.write(content);
    }
  }

  @Override
  public List<String> files(String name) throws IOException {
    return list(name, false);
  }

  @Override
  public List<String> directories(String name) throws IOException {
    return list(name, true);
  }

  private List<String> list(String name, boolean dirs) throws IOException {
    FileStatus[] all;
    try {
      all = fs().listStatus(path(name));
    } catch (FileNotFoundException e) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (all != null) {
      for (FileStatus s : all) {
        if (s.isDir() == dirs) {
          out.add(s.getPath().getName());
        }
      }
    }
    out.sort(null);
    return out;
  }

  @Override
  public long modifiedMillis(String name) throws IOException {
    return fs().getFileStatus(path(name)).getModificationTime();
  }

  @Override
  public void delete(String name) throws IOException {
    FileSystem fs = fs();
    org.apache.flink.core.fs.Path p = path(name);
    if (fs.exists(p)) {
      fs.delete(p, true);
    }
  }

  @Override
  public void createDirectories() throws IOException {
    fs().mkdirs(path(""));
  }
}
