package io.logbench.rundir;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.flink.core.fs.BlockLocation;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.local.LocalBlockLocation;
import org.apache.flink.core.fs.local.LocalDataInputStream;

/**
 * A test emulator of an object store (such as S3) as a Flink file system, for the scheme {@value
 * #SCHEME} ({@code objstore://bucket/key}): the objects live in files under a local directory
 * ({@link #ROOT_PROPERTY}, else a folder of the temporary directory), and the file system allows
 * only what an object store does, refusing the rest with an exception that names it:
 *
 * <ul>
 *   <li>an object appears whole when its writer closes (it is staged elsewhere until then), as a
 *       PUT does; {@link WriteMode#NO_OVERWRITE} over an existing object is refused, at open and
 *       again at close;
 *   <li>there is no rename, no append (Flink's API has none) and no recoverable writer;
 *   <li>directories are only prefixes of keys: {@code mkdirs} creates nothing, a prefix exists
 *       while an object has it, and listing a prefix gives its objects and next-level prefixes.
 * </ul>
 *
 * <p>Every refusal is also kept in {@link #refusals}, so a test can check that nothing tried one.
 * Registered for Flink's {@code ServiceLoader} discovery in {@code
 * META-INF/services/org.apache.flink.core.fs.FileSystemFactory} of the test resources, which the
 * client and the embedded MiniCluster both read. Not a real S3 or HDFS: those were not tested.
 */
public final class ObjectStoreEmulator extends FileSystem {

  /** The emulated store's URI scheme. */
  public static final String SCHEME = "objstore";

  /** The system property naming the local directory that holds the buckets. */
  public static final String ROOT_PROPERTY = "logbench.objstore.root";

  private static final List<String> REFUSALS = new CopyOnWriteArrayList<>();
  private static final List<String> PUTS = new CopyOnWriteArrayList<>();

  private final String bucket;
  private final Path dir;
  private final Path staging;

  private ObjectStoreEmulator(String bucket, Path root) {
    this.bucket = bucket;
    this.dir = root.resolve(bucket);
    this.staging = root.resolve(".staging");
  }

  /** Each operation the emulator refused so far in this JVM, as a sentence. */
  public static List<String> refusals() {
    return List.copyOf(REFUSALS);
  }

  /** Each object written so far in this JVM (its URI), in the order its writer closed. */
  public static List<String> puts() {
    return List.copyOf(PUTS);
  }

  /** Deletes a bucket and every object in it (test clean-up). */
  public static void dropBucket(String bucket) throws IOException {
    Path b = root().resolve(bucket);
    if (Files.exists(b)) {
      try (Stream<Path> all = Files.walk(b)) {
        for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(x);
        }
      }
    }
  }

  /** The local directory the buckets are kept in. */
  public static Path root() {
    String p = System.getProperty(ROOT_PROPERTY);
    return p != null ? Path.of(p) : Path.of(System.getProperty("java.io.tmpdir"), "logbench-objstore-emulator");
  }

  /** The local file holding object {@code key} of {@code bucket} (for tests that inspect the store). */
  public static Path objectFile(String bucket, String key) {
    return root().resolve(bucket).resolve(key);
  }

  private static IOException refuse(String what) {
    REFUSALS.add(what);
    return new IOException("Object store emulator: " + what);
  }

  /** The key of {@code p} in this bucket ({@code ""} for the bucket itself). */
  private String key(org.apache.flink.core.fs.Path p) throws IOException {
    URI u = p.toUri();
    if (u.getScheme() != null && !SCHEME.equals(u.getScheme())) {
      throw new IOException("Object store emulator: " + p + " is not an " + SCHEME + ":// path.");
    }
    if (u.getAuthority() != null && !bucket.equals(u.getAuthority())) {
      throw new IOException("Object store emulator: " + p + " is not in bucket " + bucket + ".");
    }
    String k = u.getPath() == null ? "" : u.getPath();
    while (k.startsWith("/")) {
      k = k.substring(1);
    }
    while (k.endsWith("/")) {
      k = k.substring(0, k.length() - 1);
    }
    return k;
  }

  private Path local(org.apache.flink.core.fs.Path p) throws IOException {
    String k = key(p);
    return k.isEmpty() ? dir : dir.resolve(k);
  }

  private org.apache.flink.core.fs.Path pathOf(Path local) {
    String k = dir.relativize(local).toString().replace('\\', '/');
    return new org.apache.flink.core.fs.Path(SCHEME + "://" + bucket + "/" + k);
  }

  @Override
  public org.apache.flink.core.fs.Path getWorkingDirectory() {
    return new org.apache.flink.core.fs.Path(SCHEME + "://" + bucket + "/");
  }

  @Override
  public org.apache.flink.core.fs.Path getHomeDirectory() {
    return getWorkingDirectory();
  }

  @Override
  public URI getUri() {
    return URI.create(SCHEME + "://" + bucket + "/");
  }

  @Override
  public FileStatus getFileStatus(org.apache.flink.core.fs.Path p) throws IOException {
    Path f = local(p);
    if (Files.isRegularFile(f)) {
      return new Status(p, Files.size(f), false, Files.getLastModifiedTime(f).toMillis());
    }
    if (Files.isDirectory(f) && hasObjects(f)) {
      return new Status(p, 0, true, 0);
    }
    throw new FileNotFoundException("Object store emulator: no object or prefix " + p + ".");
  }

  private static boolean hasObjects(Path prefix) throws IOException {
    try (Stream<Path> all = Files.walk(prefix)) {
      return all.anyMatch(Files::isRegularFile);
    }
  }

  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) {
    return new BlockLocation[] {new LocalBlockLocation(file.getLen())};
  }

  @Override
  public FSDataInputStream open(org.apache.flink.core.fs.Path p, int bufferSize) throws IOException {
    return open(p);
  }

  @Override
  public FSDataInputStream open(org.apache.flink.core.fs.Path p) throws IOException {
    Path f = local(p);
    if (!Files.isRegularFile(f)) {
      throw new FileNotFoundException("Object store emulator: no object " + p + ".");
    }
    return new LocalDataInputStream(f.toFile());
  }

  @Override
  public FileStatus[] listStatus(org.apache.flink.core.fs.Path p) throws IOException {
    Path f = local(p);
    if (Files.isRegularFile(f)) {
      return new FileStatus[] {getFileStatus(p)};
    }
    if (!Files.isDirectory(f) || !hasObjects(f)) {
      throw new FileNotFoundException("Object store emulator: no object or prefix " + p + ".");
    }
    List<FileStatus> out = new ArrayList<>();
    try (Stream<Path> children = Files.list(f)) {
      for (Path c : children.sorted().toList()) {
        if (Files.isRegularFile(c)) {
          out.add(new Status(pathOf(c), Files.size(c), false, Files.getLastModifiedTime(c).toMillis()));
        } else if (hasObjects(c)) {
          out.add(new Status(pathOf(c), 0, true, 0));
        }
      }
    }
    return out.toArray(new FileStatus[0]);
  }

  @Override
  public boolean delete(org.apache.flink.core.fs.Path p, boolean recursive) throws IOException {
    Path f = local(p);
    if (Files.isRegularFile(f)) {
      Files.delete(f);
      pruneEmptyParents(f.getParent());
      return true;
    }
    if (!Files.isDirectory(f)) {
      return false;
    }
    if (!recursive && hasObjects(f)) {
      throw new DirectoryNotEmptyException("Object store emulator: prefix " + p + " holds objects; delete it"
          + " recursively.");
    }
    try (Stream<Path> all = Files.walk(f)) {
      for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(x);
      }
    }
    pruneEmptyParents(f.getParent());
    return true;
  }

  /** Prefixes exist only through their objects: drops the local folders left empty. */
  private void pruneEmptyParents(Path from) throws IOException {
    for (Path d = from; d != null && d.startsWith(dir) && !d.equals(dir); d = d.getParent()) {
      try (Stream<Path> any = Files.list(d)) {
        if (any.findAny().isPresent()) {
          return;
        }
      }
      Files.deleteIfExists(d);
    }
  }

  @Override
  public boolean mkdirs(org.apache.flink.core.fs.Path p) {
    return true; // an object store has no directories: a prefix exists once an object has it
  }

  @Override
  public FSDataOutputStream create(org.apache.flink.core.fs.Path p, WriteMode mode) throws IOException {
    Path target = local(p);
    if (key(p).isEmpty()) {
      throw refuse("an object needs a key; " + p + " names the bucket.");
    }
    if (Files.isDirectory(target)) {
      throw refuse("create " + p + ": the key is a prefix of other objects.");
    }
    if (mode == WriteMode.NO_OVERWRITE && Files.exists(target)) {
      REFUSALS.add("create " + p + " with NO_OVERWRITE: the object exists.");
      throw new FileAlreadyExistsException("Object store emulator: object " + p + " exists (NO_OVERWRITE).");
    }
    Files.createDirectories(staging);
    return new Upload(p, target, staging.resolve(UUID.randomUUID().toString()), mode);
  }

  @Override
  public boolean rename(org.apache.flink.core.fs.Path src, org.apache.flink.core.fs.Path dst) throws IOException {
    throw refuse("rename " + src + " to " + dst + ": an object store has no rename.");
  }

  @Override
  public boolean isDistributedFS() {
    return true;
  }

  /** An object being written: staged, and put in place whole when closed. */
  private static final class Upload extends FSDataOutputStream {
    private final org.apache.flink.core.fs.Path path;
    private final Path target;
    private final Path staged;
    private final WriteMode mode;
    private final OutputStream out;
    private long pos;
    private boolean closed;

    Upload(org.apache.flink.core.fs.Path path, Path target, Path staged, WriteMode mode) throws IOException {
      this.path = path;
      this.target = target;
      this.staged = staged;
      this.mode = mode;
      this.out = Files.newOutputStream(staged);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      pos++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      pos += len;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void flush() throws IOException {
      out.flush(); // the object appears only on close
    }

    @Override
    public void sync() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      out.close();
      try {
        Files.createDirectories(target.getParent());
        if (mode == WriteMode.NO_OVERWRITE) {
          // without REPLACE_EXISTING the move fails when another writer put the object meanwhile
          Files.move(staged, target);
        } else {
          Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        PUTS.add(path.toString());
      } catch (FileAlreadyExistsException e) {
        REFUSALS.add("close " + path + " with NO_OVERWRITE: another writer put the object first.");
        throw new FileAlreadyExistsException("Object store emulator: object " + path + " exists (NO_OVERWRITE).");
      } finally {
        Files.deleteIfExists(staged);
      }
    }
  }

  /** An object's or prefix's status. */
  private record Status(org.apache.flink.core.fs.Path getPath, long getLen, boolean isDir, long getModificationTime)
      implements FileStatus {
    @Override
    public long getBlockSize() {
      return Math.max(getLen, 1);
    }

    @Override
    public short getReplication() {
      return 1;
    }

    @Override
    public long getAccessTime() {
      return 0;
    }
  }

  /** Registers {@value #SCHEME} with Flink's file systems. */
  public static final class Factory implements FileSystemFactory {
    @Override
    public String getScheme() {
      return SCHEME;
    }

    @Override
    public FileSystem create(URI uri) {
      String bucket = uri.getAuthority();
      if (bucket == null || bucket.isEmpty()) {
        throw new IllegalArgumentException("Object store emulator: " + uri + " names no bucket; expected "
            + SCHEME + "://bucket/key.");
      }
      return new ObjectStoreEmulator(bucket, root());
    }
  }
}
