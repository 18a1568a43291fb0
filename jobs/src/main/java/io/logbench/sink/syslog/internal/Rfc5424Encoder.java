package io.logbench.sink.syslog.internal;

import io.logbench.dataset.LineBatch;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Writes a batch's lines as RFC 5424 syslog messages: {@code <PRI>1 TIMESTAMP HOSTNAME APP-NAME
 * - - - MSG}, the timestamp the line's own in UTC to the millisecond ({@code
 * 2026-05-01T12:00:00.123Z}), no structured data, the line as MSG (UTF-8, no BOM). Over TCP each
 * message is framed by octet counting (RFC 6587 3.4.1: {@code MSG-LEN SP SYSLOG-MSG}); over UDP
 * each is a datagram of its own (RFC 5426), for which {@link #message} writes one.
 */
public final class Rfc5424Encoder {

  private static final DateTimeFormatter SECOND =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

  private final byte[] head;
  private final byte[] tail;
  private long cachedSecond = Long.MIN_VALUE;
  private byte[] cachedTime;

  /**
   * @param priority facility * 8 + severity
   * @param hostname the HOSTNAME field (printable ASCII, no spaces)
   * @param appName the APP-NAME field (printable ASCII, no spaces)
   */
  public Rfc5424Encoder(int priority, String hostname, String appName) {
    this.head = ("<" + priority + ">1 ").getBytes(StandardCharsets.US_ASCII);
    this.tail = (" " + hostname + " " + appName + " - - - ").getBytes(StandardCharsets.US_ASCII);
  }

  /** The length of line {@code k}'s message, without framing. */
  public int length(LineBatch batch, int k) {
    return head.length + 24 + tail.length + batch.length(k);
  }

  /** Writes line {@code k}'s message into {@code out}. */
  public void message(LineBatch batch, int k, ByteBuf out) {
    out.writeBytes(head);
    writeTime(batch.timestampMillis(k), out);
    out.writeBytes(tail);
    out.writeBytes(batch.rawData(), batch.start(k), batch.length(k));
  }

  /** Writes every line of {@code batch} into {@code out}, each framed by octet counting. */
  public void octetCounted(LineBatch batch, ByteBuf out) {
    for (int k = 0; k < batch.count(); k++) {
      out.writeCharSequence(Integer.toString(length(batch, k)), StandardCharsets.US_ASCII);
      out.writeByte(' ');
      message(batch, k, out);
    }
  }

  /** Writes {@code millis} as {@code uuuu-MM-ddTHH:mm:ss.SSSZ} (24 bytes). */
  private void writeTime(long millis, ByteBuf out) {
    long second = Math.floorDiv(millis, 1000);
    if (second != cachedSecond) {
      cachedSecond = second;
      cachedTime = SECOND.format(Instant.ofEpochSecond(second)).getBytes(StandardCharsets.US_ASCII);
    }
    int ms = (int) Math.floorMod(millis, 1000);
    out.writeBytes(cachedTime);
    out.writeByte('.');
    out.writeByte('0' + ms / 100);
    out.writeByte('0' + ms / 10 % 10);
    out.writeByte('0' + ms % 10);
    out.writeByte('Z');
  }
}
