package io.logbench.dataset;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A batch of consecutive lines held as one byte array plus per-line metadata, so a sink can
 * copy lines without re-encoding them. Mutable and reusable: {@link #reset} empties it.
 *
 * <p>Line {@code k} of the batch has sequence id {@code firstSeq + k}, bytes {@code
 * data[start(k), end(k))} (no newline), a timestamp in epoch milliseconds and a stream id.
 *
 * <p>The bytes are the line's raw bytes, or, in a batch made for a backend that writes each line
 * inside a JSON string ({@link #jsonEscaped()}), the line already escaped for that string
 * ({@link JsonEscaping}), so its encoder copies them instead of escaping every byte. Code that
 * needs the raw bytes reads {@link #rawData()}, which refuses an escaped batch.
 */
public final class LineBatch {

  /** Batch number within the run: deterministic, so ledgers can be idempotent. */
  private long batchId;

  private long firstSeq;
  /** Epoch nanoseconds the batch was due by its schedule (set by the source; 0 when unknown). */
  private long scheduledNanos;
  private int count;
  private byte[] data;
  private int size;
  private int[] ends;
  private long[] timestamps;
  private int[] streams;
  /** Per-line sequence ids of a {@link #select}ed sub-batch (lines not consecutive); else null. */
  private long[] seqs;
  /** Whether the bytes are the lines escaped for the inside of a JSON string. */
  private boolean jsonEscaped;

  public LineBatch(int lineCapacity, int byteCapacity) {
    this.data = new byte[Math.max(16, byteCapacity)];
    this.ends = new int[Math.max(1, lineCapacity)];
    this.timestamps = new long[ends.length];
    this.streams = new int[ends.length];
  }

  public LineBatch() {
    this(128, 16 * 1024);
  }

  /**
   * Empties the batch and sets the id and first sequence id of what comes next; the form of its
   * lines ({@link #jsonEscaped()}) stays.
   */
  public void reset(long batchId, long firstSeq) {
    this.batchId = batchId;
    this.firstSeq = firstSeq;
    this.count = 0;
    this.size = 0;
    this.scheduledNanos = 0;
    this.seqs = null;
  }

  public long batchId() {
    return batchId;
  }

  public long firstSeq() {
    return firstSeq;
  }

  /** Epoch nanoseconds the batch was due (latency is measured from here); 0 when unknown. */
  public long scheduledNanos() {
    return scheduledNanos;
  }

  public void setScheduledNanos(long scheduledNanos) {
    this.scheduledNanos = scheduledNanos;
  }

  public int count() {
    return count;
  }

  /** Total bytes of all lines (no separators). */
  public int byteSize() {
    return size;
  }

  /**
   * The backing array, valid from 0 to {@link #byteSize()}: the lines' raw bytes, or their JSON
   * escaped bytes when {@link #jsonEscaped()}.
   */
  public byte[] data() {
    return data;
  }

  /**
   * The backing array of a batch of raw lines, for code that writes lines as they are (files,
   * Kafka records, protobuf, syslog).
   *
   * @throws IllegalStateException when the batch holds its lines JSON escaped
   */
  public byte[] rawData() {
    if (jsonEscaped) {
      throw new IllegalStateException("Batch " + batchId + " holds its lines escaped for a JSON string; this"
          + " backend writes raw lines and its source must make them raw.");
    }
    return data;
  }

  /**
   * Whether the lines are held escaped for the inside of a JSON string (quote, backslash and
   * control bytes escaped as {@link JsonEscaping} does), as a JSON encoder writes them; false for
   * raw bytes.
   */
  public boolean jsonEscaped() {
    return jsonEscaped;
  }

  /**
   * Sets the form the lines are held in, on an empty batch: the one who makes the lines writes
   * them so ({@link LineCursor}). {@link #reset} keeps it.
   */
  public void setJsonEscaped(boolean jsonEscaped) {
    if (count != 0) {
      throw new IllegalStateException("The form of batch " + batchId + "'s lines is set before its first line,"
          + " not after " + count + ".");
    }
    this.jsonEscaped = jsonEscaped;
  }

  public int start(int k) {
    return k == 0 ? 0 : ends[k - 1];
  }

  public int end(int k) {
    return ends[k];
  }

  public int length(int k) {
    return end(k) - start(k);
  }

  /** Global sequence id of line {@code k}. */
  public long seq(int k) {
    return seqs == null ? firstSeq + k : seqs[k];
  }

  /** Names the sequence ids of the lines, for a batch whose lines are not consecutive. */
  public void setSequenceIds(long[] ids) {
    if (ids.length < count) {
      throw new IllegalArgumentException(count + " lines need " + count + " sequence ids, not " + ids.length + ".");
    }
    this.seqs = ids;
  }

  /** False for a {@link #select}ed sub-batch whose lines are not consecutive in the run. */
  public boolean consecutive() {
    return seqs == null;
  }

  public long timestampMillis(int k) {
    return timestamps[k];
  }

  /** Replaces the timestamp of line {@code k}, e.g. when a timestamp mode maps it. */
  public void setTimestampMillis(int k, long millis) {
    timestamps[k] = millis;
  }

  public int stream(int k) {
    return streams[k];
  }

  /** The raw line {@code k} as text (unescaped when the batch holds it escaped). */
  public String lineAsString(int k) {
    return new String(rawLine(k), StandardCharsets.UTF_8);
  }

  /** The raw bytes of line {@code k} (unescaped when the batch holds it escaped), in a new array. */
  public byte[] rawLine(int k) {
    return jsonEscaped ? JsonEscaping.unescape(data, start(k), length(k)) : Arrays.copyOfRange(data, start(k), end(k));
  }

  /** The length of line {@code k}'s raw bytes, such as a backend's line size limit counts. */
  public int rawLength(int k) {
    return jsonEscaped ? rawLine(k).length : length(k);
  }

  /**
   * Makes room for {@code bytes} more bytes and returns the offset to write them at; the caller
   * then writes into {@link #data()} and calls {@link #commitLine}.
   */
  public int reserve(int bytes) {
    if (size + bytes > data.length) {
      data = Arrays.copyOf(data, Math.max(data.length * 2, size + bytes));
    }
    return size;
  }

  /** Closes the line that ends at {@code endOffset} (bytes written since the last line). */
  public void commitLine(int endOffset, long timestampMillis, int stream) {
    if (count == ends.length) {
      int n = ends.length * 2;
      ends = Arrays.copyOf(ends, n);
      timestamps = Arrays.copyOf(timestamps, n);
      streams = Arrays.copyOf(streams, n);
    }
    ends[count] = endOffset;
    timestamps[count] = timestampMillis;
    streams[count] = stream;
    size = endOffset;
    count++;
  }

  /** Appends a whole line from a byte array. */
  public void append(byte[] src, int off, int len, long timestampMillis, int stream) {
    int at = reserve(len);
    System.arraycopy(src, off, data, at, len);
    commitLine(at + len, timestampMillis, stream);
  }

  /**
   * This batch's content in {@code to}, whose arrays are kept when they are large enough (a batch
   * done with, filled again: {@link LineBatchPool}); returns {@code to}.
   */
  public LineBatch copyInto(LineBatch to) {
    if (to.data.length < size) {
      to.data = new byte[size];
    }
    if (to.ends.length < count) {
      to.ends = new int[count];
      to.timestamps = new long[count];
      to.streams = new int[count];
    }
    to.batchId = batchId;
    to.firstSeq = firstSeq;
    to.scheduledNanos = scheduledNanos;
    to.count = count;
    to.size = size;
    System.arraycopy(data, 0, to.data, 0, size);
    System.arraycopy(ends, 0, to.ends, 0, count);
    System.arraycopy(timestamps, 0, to.timestamps, 0, count);
    System.arraycopy(streams, 0, to.streams, 0, count);
    to.seqs = seqs == null ? null : Arrays.copyOf(seqs, count);
    to.jsonEscaped = jsonEscaped;
    return to;
  }

  /** A copy holding exactly this batch's content (for emitting downstream). */
  public LineBatch copy() {
    return copyInto(new LineBatch(Math.max(1, count), Math.max(16, size)));
  }

  /**
   * A new batch holding only the given lines (indexes within this batch), each keeping its
   * sequence id, timestamp and stream, with this batch's id, scheduled time and form of lines: what a sender
   * resends when a backend took part of a batch. Its first sequence id is that of its first line.
   */
  public LineBatch select(java.util.BitSet lines) {
    int n = lines.cardinality();
    int bytes = 0;
    for (int k = lines.nextSetBit(0); k >= 0; k = lines.nextSetBit(k + 1)) {
      bytes += length(k);
    }
    LineBatch c = new LineBatch(Math.max(1, n), Math.max(16, bytes));
    c.reset(batchId, n == 0 ? firstSeq : seq(lines.nextSetBit(0)));
    c.scheduledNanos = scheduledNanos;
    c.jsonEscaped = jsonEscaped;
    long[] s = new long[Math.max(1, n)];
    int j = 0;
    for (int k = lines.nextSetBit(0); k >= 0; k = lines.nextSetBit(k + 1)) {
      if (k >= count) {
        throw new IndexOutOfBoundsException("Line " + k + " is not in a batch of " + count + " lines.");
      }
      c.append(data, start(k), length(k), timestamps[k], streams[k]);
      s[j++] = seq(k);
    }
    c.seqs = s;
    return c;
  }

  /**
   * The line's distinct nanosecond timestamp: its millisecond plus an offset from 1 to 999,999
   * taken from the sequence id, so it never sits on a whole millisecond (window boundaries) and
   * two lines of one millisecond never share it (Loki drops lines identical in timestamp, labels
   * and text). Lines of one millisecond are consecutive, and there are fewer than 999,999 of them.
   */
  public static long distinctNanos(long timestampMillis, long seq) {
    // an int remainder where it can: C1, the JIT of a run, makes a 64-bit one a call into the VM
    long offset = seq >= 0 && seq <= Integer.MAX_VALUE ? (int) seq % 999_999 : Math.floorMod(seq, 999_999L);
    return timestampMillis * 1_000_000L + 1 + offset;
  }

  public long timestampNanos(int k) {
    return distinctNanos(timestamps[k], seq(k));
  }
}
