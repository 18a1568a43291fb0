package io.logbench.publish;

/**
 * One published line read back from its topic: its global sequence id, its own time, its stream
 * and its bytes, plus where it was read (partition and offset, so a reader that holds it back
 * until it is due can rewind its checkpointed offset to it). A Flink POJO: public fields, a
 * no-argument constructor.
 */
public final class ReplayLine {

  /** Global sequence id: the line's index in the dataset. */
  public long seq;
  /** The line's own time (as published), epoch milliseconds. */
  public long millis;
  /** Stream id in the dataset's catalog. */
  public int stream;
  /** The line's UTF-8 bytes, without a newline. */
  public byte[] line;
  /** Partition it was read from. */
  public int partition;
  /** Offset it was read at. */
  public long offset;

  public ReplayLine() {}

  public ReplayLine(long seq, long millis, int stream, byte[] line, int partition, long offset) {
    this.seq = seq;
    this.millis = millis;
    this.stream = stream;
    this.line = line;
    this.partition = partition;
    this.offset = offset;
  }

  @Override
  public String toString() {
    return "ReplayLine{seq=" + seq + ", millis=" + millis + ", stream=" + stream + ", partition=" + partition
        + ", offset=" + offset + "}";
  }
}
