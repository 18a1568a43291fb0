package io.logbench.sink.logfile;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When and how a {@code file} write rotates its file, as an app's logging library or logrotate
 * would: by size (before a batch that would take the file past {@code size} bytes) or by time
 * (at every multiple of {@code every} since the epoch), by renaming ({@code app.log} becomes
 * {@code app.log.1}, a new {@code app.log} is created) or by copying and truncating ({@code
 * copytruncate}: the same file, emptied, goes on), keeping {@code keep} rotated files ({@code
 * app.log.1} the newest) and deleting older ones.
 *
 * @param sizeBytes rotate before the file would pass this size; 0 for no size rotation
 * @param every rotate at each multiple of this since the epoch; null for no time rotation
 * @param mode rename-and-create or copytruncate
 * @param keep rotated files kept (0: a rotated file is deleted at once)
 */
public record Rotation(long sizeBytes, Duration every, Mode mode, int keep) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Default {@code keep}: logrotate's habit of a few rotated files. */
  public static final int DEFAULT_KEEP = 5;

  private static final Pattern SIZE = Pattern.compile("([0-9]+)\\s*(B|KB|KiB|MB|MiB|GB|GiB)?", Pattern.CASE_INSENSITIVE);

  /** How a file is rotated. */
  public enum Mode {
    /** Rename the file to {@code .1} and create a new one (logback, log4j, logrotate's default). */
    RENAME("rename"),
    /** Copy the file to {@code .1} and truncate it in place (logrotate's {@code copytruncate}). */
    COPYTRUNCATE("copytruncate");

    private final String key;

    Mode(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }
  }

  /** No rotation: one file that grows. */
  public static Rotation none() {
    return new Rotation(0, null, Mode.RENAME, DEFAULT_KEEP);
  }

  public Rotation {
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("A rotation size must not be negative, got " + sizeBytes + ".");
    }
    if (keep < 0) {
      throw new IllegalArgumentException("keep must not be negative, got " + keep + ".");
    }
  }

  /** Whether the file rotates at all. */
  public boolean rotates() {
    return sizeBytes > 0 || every != null;
  }

  /** Reads a {@code rotate:} block ({@code size}, {@code every}, {@code mode}, {@code keep}). */
  static Rotation parse(ConfigNode block) {
    block.allowOnly("size", "every", "mode", "keep");
    long size = block.has("size") ? bytes(block, "size") : 0;
    Duration every = block.has("every") ? block.duration("every", null, false) : null;
    if (every != null && every.toMillis() < 100) {
      throw block.invalid("every", every, "a rotation interval of at least 100ms");
    }
    if (size == 0 && every == null) {
      throw new ConfigException(block.path() + ": a rotate block needs size (such as 10MB), every (such as 1h)"
          + " or both; leave rotate out for a file that never rotates.");
    }
    String m = block.choice("mode", "rename", "rename", "copytruncate");
    int keep = (int) block.integer("keep", DEFAULT_KEEP, 0, 1000, "a number of rotated files to keep from 0 to 1000");
    return new Rotation(size, every, m.equals("rename") ? Mode.RENAME : Mode.COPYTRUNCATE, keep);
  }

  private static long bytes(ConfigNode block, String key) {
    String text = block.raw().get(key).asText().strip();
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      throw block.invalid(key, text, "a size in bytes such as 65536, 64KB or 10MB");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
    long mult = switch (unit) {
      case "KB", "KIB" -> 1024L;
      case "MB", "MIB" -> 1024L * 1024;
      case "GB", "GIB" -> 1024L * 1024 * 1024;
      default -> 1L;
    };
    if (n <= 0) {
      throw block.invalid(key, text, "a positive size such as 64KB");
    }
    return n * mult;
  }
}
