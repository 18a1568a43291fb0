package io.logbench.sink.files;

import io.logbench.count.CountReader;
import io.logbench.count.internal.WindowRange;
import io.logbench.dataset.Dataset;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * Counts the lines of a {@code files} backend's day files ({@code dir/YYYY-MM-DD.log}, read in
 * name order, streaming through a buffered reader) per window of the dataset's own time:
 *
 * <ul>
 *   <li>nginx-month lines ({@code { "time":"[01/May/2021:00:00:00.000 -0300]", ...}}): the time
 *       field, read as a local time of the dataset's zone when one is known (the lines say
 *       {@code -0300} whatever the zone), else with the offset the line carries;
 *   <li>app-json lines carry no time, only {@code "seq"}: the dataset's own time of that seq,
 *       {@link Dataset#timestampMillis}, so these need the run's dataset.
 * </ul>
 *
 * Empty lines (an empty minute of the seed layout) are not lines of the run. Times are the
 * dataset's own unless the reader knows the run's line times ({@link Builder#lineTimes}): then
 * each line counts at the time it carried in the run, found from its sequence id (its seq field,
 * or its position from the run's first line), so {@code compressed} and {@code now} runs count
 * in their own windows too.
 *
 * <p>{@link #sequenceIds}: the {@code seq} of app-json lines; nginx lines carry none, so their id
 * is positional: {@code firstSeq} plus the line's position among the non-empty lines of all the
 * files. A deleted line therefore shifts the ids of every later line by one (counts are not
 * affected).
 */
public final class FilesCountReader implements CountReader {

  private static final String NGINX_HEAD = "{ \"time\":\"[";
  private static final String SEQ_KEY = "\"seq\":";
  private static final String[] MONTHS = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
  };

  private final Path dir;
  private final Dataset dataset;
  private final ZoneId zone;
  private final long firstSeq;
  private final LongUnaryOperator lineTimes;
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();

  private FilesCountReader(Builder b) {
    this.dir = b.dir;
    this.dataset = b.dataset;
    this.zone = b.zone;
    this.firstSeq = b.firstSeq;
    this.lineTimes = b.lineTimes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** What a pass does with each line: its time, its id and its text. */
  interface LineSink {
    /** Returns false to stop the pass. */
    boolean line(long millis, long seq, String text);
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    WindowRange range = WindowRange.of(fromMillis, toMillis, windowMillis);
    long[] counts = new long[range.n()];
    if (range.n() > 0) {
      pass(
          (millis, seq, text) -> {
            int k = range.indexOf(millis);
            if (k >= 0) {
              counts[k]++;
            }
            return true;
          });
    }
    return counts;
  }

  /** Every read passes over the whole {@code scan} source. */
  @Override
  public boolean scans() {
    return true;
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    List<Long> seqs = new ArrayList<>();
    if (limit > 0 && toMillis > fromMillis) {
      pass(
          (millis, seq, text) -> {
            if (millis >= fromMillis && millis < toMillis) {
              seqs.add(seq);
            }
            return seqs.size() < limit;
          });
    }
    return seqs;
  }

  /** One pass over every line of the day files, in order. */
  void pass(LineSink sink) throws IOException {
    long t0 = System.nanoTime();
    try {
      long position = 0;
      for (Path file : dayFiles()) {
        try (BufferedReader in =
            new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8), 1 << 20)) {
          String line;
          long number = 0;
          while ((line = in.readLine()) != null) {
            number++;
            if (line.isEmpty()) {
              continue;
            }
            long millis;
            long seq;
            if (line.startsWith(NGINX_HEAD)) {
              seq = firstSeq + position;
              millis = lineTimes != null ? lineTimes.applyAsLong(seq) : nginxMillis(line, file, number);
            } else {
              seq = appSeq(line, file, number);
              millis = lineTimes != null ? lineTimes.applyAsLong(seq) : dataset.timestampMillis(seq);
            }
            position++;
            if (!sink.line(millis, seq, line)) {
              return;
            }
          }
        }
      }
    } finally {
      passes.incrementAndGet();
      nanos.addAndGet(System.nanoTime() - t0);
    }
  }

  /** The day files, in name (so time) order. */
  private List<Path> dayFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir, "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].log")) {
      listing.forEach(files::add);
    } catch (NoSuchFileException e) {
      throw new IOException("The files backend's directory " + dir + " does not exist.", e);
    }
    files.sort(null);
    return files;
  }

  /** {@code { "time":"[dd/Mon/yyyy:HH:mm:ss.SSS +hhmm]"...}. */
  private long nginxMillis(String line, Path file, long number) throws IOException {
    int at = NGINX_HEAD.length();
    try {
      if (line.length() < at + 31 || line.charAt(at + 2) != '/' || line.charAt(at + 6) != '/'
          || line.charAt(at + 11) != ':' || line.charAt(at + 20) != '.' || line.charAt(at + 24) != ' ') {
        throw new NumberFormatException();
      }
      int day = digits(line, at, 2);
      int month = month(line.substring(at + 3, at + 6));
      int year = digits(line, at + 7, 4);
      int hour = digits(line, at + 12, 2);
      int minute = digits(line, at + 15, 2);
      int second = digits(line, at + 18, 2);
      int milli = digits(line, at + 21, 3);
      LocalDateTime local = LocalDateTime.of(year, month, day, hour, minute, second, milli * 1_000_000);
      if (zone != null) {
        return local.atZone(zone).toInstant().toEpochMilli();
      }
      int sign = line.charAt(at + 25) == '-' ? -1 : 1;
      int offsetMinutes = digits(line, at + 26, 2) * 60 + digits(line, at + 28, 2);
      return local.toInstant(ZoneOffset.ofTotalSeconds(sign * offsetMinutes * 60)).toEpochMilli();
    } catch (RuntimeException e) {
      throw new IOException("Line " + number + " of " + file + " has no nginx time field that can be read.");
    }
  }

  private long appSeq(String line, Path file, long number) throws IOException {
    int at = line.lastIndexOf(SEQ_KEY);
    if (at < 0) {
      throw new IOException(
          "Line " + number + " of " + file + " is neither an nginx-month line (a time field) nor an app-json"
              + " line (a seq field).");
    }
    if (dataset == null) {
      throw new IOException(
          "Line " + number + " of " + file + " is an app-json line: it carries no time, and this reader"
              + " was opened without the run's dataset to find the time of its seq.");
    }
    int i = at + SEQ_KEY.length();
    long seq = 0;
    int start = i;
    while (i < line.length() && Character.isDigit(line.charAt(i))) {
      seq = seq * 10 + (line.charAt(i) - '0');
      i++;
    }
    if (i == start || i - start > 18) {
      throw new IOException("Line " + number + " of " + file + " has a seq that is not a number.");
    }
    return seq;
  }

  private static int digits(String s, int at, int n) {
    int v = 0;
    for (int i = at; i < at + n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        throw new NumberFormatException();
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static int month(String name) {
    for (int m = 0; m < 12; m++) {
      if (MONTHS[m].equals(name)) {
        return m + 1;
      }
    }
    throw new NumberFormatException();
  }

  @Override
  public QueryStats stats() {
    return new QueryStats(passes.get(), nanos.get());
  }

  @Override
  public void close() {
    // each pass closes its files
  }

  /** Settings of a reader; {@code dir} is required. */
  public static final class Builder {
    private Path dir;
    private Dataset dataset;
    private ZoneId zone;
    private long firstSeq;
    private LongUnaryOperator lineTimes;

    private Builder() {}

    /** The directory of the day files. */
    public Builder dir(Path dir) {
      this.dir = dir;
      return this;
    }

    /** The run's dataset: needed for app-json lines (the time of each seq). */
    public Builder dataset(Dataset dataset) {
      this.dataset = dataset;
      return this;
    }

    /** The zone nginx line times are local to (default: the offset each line carries). */
    public Builder zone(ZoneId zone) {
      this.zone = zone;
      return this;
    }

    /** Sequence id of the first line of the files (the run's first index), for positional ids. */
    public Builder firstSeq(long firstSeq) {
      this.firstSeq = firstSeq;
      return this;
    }

    /**
     * The time each sequence id carried in the run (its timeline), instead of the dataset's own
     * time: for runs whose timestamps are not {@code original}.
     */
    public Builder lineTimes(LongUnaryOperator timesBySeq) {
      this.lineTimes = timesBySeq;
      return this;
    }

    public FilesCountReader build() {
      Objects.requireNonNull(dir, "The directory of a files count reader is required.");
      return new FilesCountReader(this);
    }
  }
}
