package io.logbench.sink.syslog;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.syslog.internal.Rfc5424Encoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class Rfc5424EncoderTest {

  private static LineBatch batch(String... lines) {
    LineBatch b = new LineBatch();
    b.reset(0, 0);
    long t = Instant.parse("2021-05-01T03:04:05.006Z").toEpochMilli();
    for (String l : lines) {
      byte[] bytes = l.getBytes(StandardCharsets.UTF_8);
      b.append(bytes, 0, bytes.length, t, 0);
      t += 1_001;
    }
    return b;
  }

  @Test
  void octetCountingFramesEachMessageByItsLengthInBytes() {
    Rfc5424Encoder e = new Rfc5424Encoder(14, "host-1", "logbench");
    ByteBuf out = Unpooled.buffer();
    e.octetCounted(batch("{\"msg\":\"héllo\"}", "b"), out);
    String first = "<14>1 2021-05-01T03:04:05.006Z host-1 logbench - - - {\"msg\":\"héllo\"}";
    String second = "<14>1 2021-05-01T03:04:06.007Z host-1 logbench - - - b";
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(
        first.getBytes(StandardCharsets.UTF_8).length + " " + first + second.length() + " " + second);
  }

  @Test
  void aMessageAloneIsWhatADatagramCarries() {
    Rfc5424Encoder e = new Rfc5424Encoder(1 * 8 + 3, "h", "a");
    LineBatch b = batch("x y");
    ByteBuf out = Unpooled.buffer();
    e.message(b, 0, out);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("<11>1 2021-05-01T03:04:05.006Z h a - - - x y");
    assertThat(e.length(b, 0)).isEqualTo(out.readableBytes());
  }
}
