package io.logbench.rundir;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A run directory on a local or mounted disk, through {@code java.nio}: whole-file writes go through
 * a temporary file of their own moved into place atomically, so a reader never sees half a file.
 */
final class LocalRunDir extends RunDir {

  private static final long serialVersionUID = 1L;

  /** The path as given (a {@link Path} is not serializable). */
  private final String path;

  LocalRunDir(Path path) {
    this.path = path.toString();
  }

  private Path dir() {
    return Path.of(path);
  }

  private Path file(String name) {
    return name.isEmpty() ? dir() : dir().resolve(name);
  }

  @Override
  public Optional<Path> local() {
    return Optional.of(dir());
  }

  @Override
  public RunDir absolute() {
    return new LocalRunDir(dir().toAbsolutePath().normalize());
  }

  @Override
  public String location() {
    return path;
  }

  @Override
  public String uri() {
    return dir().toAbsolutePath().toUri().toString();
  }

  @Override
  public String describe(String name) {
    return file(name).toString();
  }

  @Override
  public RunDir resolve(String name) {
    return new LocalRunDir(file(name));
  }

  @Override
  public boolean exists() {
    return Files.isDirectory(dir());
  }

  @Override
  public boolean exists(String name) {
    return Files.isRegularFile(file(name));
  }

  @Override
  public byte[] read(String name) throws IOException {
    return Files.readAllBytes(file(name));
  }

  @Override
  public java.io.InputStream open(String name) throws IOException {
    return Files.newInputStream(file(name));
  }

  @Override
  public String name() {
    Path f = dir().toAbsolutePath().normalize().getFileName();
    return f == null ? path : f.toString();
  }

  @Override
  public void write(String name, byte[] content) throws IOException {
    Path target = file(name).toAbsolutePath();
    Path parent = target.getParent();
    Files.createDirectories(parent);
    // a temporary file of its own: two commands (a continuous verify and generate) may both rewrite one
    Path tmp = Files.createTempFile(parent, target.getFileName().toString(), ".tmp");
    try {
      Files.write(tmp, content);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  @Override
  public void create(String name, byte[] content) throws IOException {
    Path target = file(name);
    Files.createDirectories(target.toAbsolutePath().getParent());
    if (Files.exists(target)) {
      throw new FileAlreadyExistsException(target.toString());
    }
    Files.write(target, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
  }

  @Override
  public List<String> files(String name) throws IOException {
    return list(name, Files::isRegularFile);
  }

  @Override
  public List<String> directories(String name) throws IOException {
    return list(name, Files::isDirectory);
  }

  private List<String> list(String name, Predicate<Path> kind) throws IOException {
    Path d = file(name);
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> all = Files.list(d)) {
      return all.filter(kind).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Override
  public long modifiedMillis(String name) throws IOException {
    return Files.getLastModifiedTime(file(name)).toMillis();
  }

  @Override
  public void delete(String name) throws IOException {
    Path target = file(name);
    if (!Files.exists(target)) {
      return;
    }
    try (Stream<Path> all = Files.walk(target)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Override
  public void createDirectories() throws IOException {
    Files.createDirectories(dir());
  }
}
