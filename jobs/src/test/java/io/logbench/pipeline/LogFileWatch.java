package io.logbench.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a test sees of a rotating log file, scan by scan: every file the writer made (by inode,
 * however it was renamed, a reused inode taken for a new file when it shows up under a lower
 * suffix again), the sequence ids of the lines it held, and whether it is gone. The truth of a
 * pipeline test comes from here: which files were deleted before the agent read them.
 *
 * <p>Every file it sees it also holds open until {@link #close()}, so a deleted file's inode is
 * not given to a newer file while the test runs. Fluent Bit 5.1.1, started again, looks up a file
 * it has not opened before by its inode in its offsets database, where a file deleted while it
 * was stopped still has its entry: a newer file on a reused inode is read from that file's offset
 * (fluent/fluent-bit#8025). In one run of the suite the canary named all 50 lines of the file
 * Fluent Bit opened on its restart MISSING where this watch's truth expected them read; which
 * lines such a seek skips, a test cannot know.
 */
final class LogFileWatch implements AutoCloseable {

  private static final Pattern SEQ = Pattern.compile(LineStamp.SEQ + "\\W+([0-9]+)");

  /** One file the writer made. */
  static final class Seen {
    final Object inode;
    /** Its inode number, as an agent's log names it. */
    final long ino;
    final int number;
    int suffix;
    boolean deleted;
    /** Whether the watch holds it open. */
    boolean held;
    final TreeSet<Long> seqs = new TreeSet<>();
    /** How often each id is in the file, as its latest read found (a line written again is there twice). */
    Map<Long, Integer> copies = new HashMap<>();

    Seen(Object inode, long ino, int number, int suffix) {
      this.inode = inode;
      this.ino = ino;
      this.number = number;
      this.suffix = suffix;
    }

    @Override
    public String toString() {
      return "file#" + number + "(" + (deleted ? "deleted" : "suffix " + suffix) + ", " + seqs.size() + " lines"
          + (seqs.isEmpty() ? "" : " " + seqs.first() + ".." + seqs.last()) + ")";
    }
  }

  private final Path path;
  /** The latest file of each inode seen. */
  private final Map<Object, Seen> live = new HashMap<>();
  private final List<Seen> all = new ArrayList<>();
  /** One open channel on every file seen, so no inode it had is reused before {@link #close()}. */
  private final List<FileChannel> held = new ArrayList<>();

  LogFileWatch(Path path) {
    this.path = path;
  }

  /** Reads every file of the log now; returns the file at {@code path} (null before the first). */
  synchronized Seen scan() {
    Map<Object, Seen> now = new HashMap<>();
    Seen current = null;
    try (Stream<Path> files = Files.list(path.getParent())) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        String base = path.getFileName().toString();
        int suffix;
        if (name.equals(base)) {
          suffix = 0;
        } else if (name.startsWith(base + ".") && name.substring(base.length() + 1).matches("[0-9]+")) {
          suffix = Integer.parseInt(name.substring(base.length() + 1));
        } else {
          continue;
        }
        byte[] bytes;
        Object inode;
        long ino;
        try {
          inode = Files.readAttributes(f, BasicFileAttributes.class).fileKey();
          ino = (Long) Files.getAttribute(f, "unix:ino");
          bytes = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
          continue; // rotated away between the listing and the read: the next scan sees it
        }
        // the latest file of this inode, even one a scan missed in the middle of a rotation
        Seen s = live.get(inode);
        if (s == null || suffix < s.suffix) {
          if (s != null) {
            s.deleted = true; // its inode was reused by a newer file (before this watch held it)
          }
          s = new Seen(inode, ino, all.size(), suffix);
          all.add(s);
        }
        if (!s.held) {
          s.held = hold(f, inode);
        }
        s.suffix = suffix;
        s.deleted = false;
        Matcher m = SEQ.matcher(new String(bytes, StandardCharsets.UTF_8));
        Map<Long, Integer> copies = new HashMap<>();
        while (m.find()) {
          long seq = Long.parseLong(m.group(1));
          s.seqs.add(seq);
          copies.merge(seq, 1, Integer::sum);
        }
        s.copies = copies;
        now.put(inode, s);
        if (suffix == 0) {
          current = s;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Map.Entry<Object, Seen> e : live.entrySet()) {
      if (!now.containsKey(e.getKey())) {
        e.getValue().deleted = true; // gone, or renamed while listed: a later scan may see it again
      }
    }
    live.putAll(now);
    return current;
  }

  /**
   * Opens {@code f} and keeps it open if it still is the file of {@code inode}; false when it is
   * not (renamed or deleted since the listing: a later scan tries again under its new name).
   */
  private boolean hold(Path f, Object inode) throws IOException {
    FileChannel ch;
    try {
      ch = FileChannel.open(f, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      return false;
    }
    try {
      if (inode.equals(Files.readAttributes(f, BasicFileAttributes.class).fileKey())) {
        held.add(ch);
        return true;
      }
    } catch (NoSuchFileException e) {
      // renamed since the open: which file the channel holds is not known
    }
    ch.close();
    return false;
  }

  /** Every file seen so far, oldest first. */
  synchronized List<Seen> files() {
    return List.copyOf(all);
  }

  /** The newest file seen with inode number {@code ino}, or null. */
  synchronized Seen byIno(long ino) {
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).ino == ino) {
        return all.get(i);
      }
    }
    return null;
  }

  /** Lines written so far, as the scans saw them. */
  synchronized long lines() {
    return all.stream().mapToLong(s -> s.seqs.size()).sum();
  }

  /** The ids written more than once so far, over every file (a batch written again after a restore). */
  synchronized TreeSet<Long> writtenAgain() {
    Map<Long, Integer> all = new HashMap<>();
    this.all.forEach(f -> f.copies.forEach((seq, n) -> all.merge(seq, n, Integer::sum)));
    TreeSet<Long> again = new TreeSet<>();
    all.forEach((seq, n) -> {
      if (n > 1) {
        again.add(seq);
      }
    });
    return again;
  }

  /** The highest id written so far, or -1. */
  synchronized long lastSeq() {
    return all.stream().filter(s -> !s.seqs.isEmpty()).mapToLong(s -> s.seqs.last()).max().orElse(-1);
  }

  @Override
  public synchronized String toString() {
    return all.toString();
  }

  /** Lets go of the files it held open (their inodes may then be reused). */
  @Override
  public synchronized void close() throws IOException {
    for (FileChannel ch : held) {
      ch.close();
    }
    held.clear();
  }
}
