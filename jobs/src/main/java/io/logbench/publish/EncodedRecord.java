package io.logbench.publish;

/**
 * One line ready for Kafka: the partition it goes to, its timestamp, its key (the stream's labels)
 * and its Avro {@code LogRecord} value. A Flink POJO, so it moves between operators without Kryo.
 */
public final class EncodedRecord {

  public int partition;
  public long timestamp;
  public byte[] key;
  public byte[] value;

  public EncodedRecord() {}

  public EncodedRecord(int partition, long timestamp, byte[] key, byte[] value) {
    this.partition = partition;
    this.timestamp = timestamp;
    this.key = key;
    this.value = value;
  }
}
