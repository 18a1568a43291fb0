package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.kafka.internal.LogRecordEncoder;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/** The hand-rolled Avro encoding of lines against Avro's own writer and reader. */
class LogRecordEncoderTest {

  @Test
  void encodesEveryLineExactlyAsAvrosOwnWriterDoes() throws Exception {
    LineBatch batch = KafkaTestData.batch(3, 700, 30);
    LogRecordEncoder encoder = new LogRecordEncoder(KafkaTestData.CATALOG);
    LineBatchToLogRecords toRecords = new LineBatchToLogRecords(KafkaTestData.CATALOG);
    SpecificDatumWriter<LogRecord> writer = new SpecificDatumWriter<>(LogRecord.class);
    for (int k = 0; k < batch.count(); k++) {
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      BinaryEncoder e = EncoderFactory.get().binaryEncoder(expected, null);
      writer.write(toRecords.toRecord(batch, k), e);
      e.flush();
      assertThat(encoder.encode(batch, k)).as("line %d", k).isEqualTo(expected.toByteArray());
    }
  }

  @Test
  void decodesBackToTheLinesFields() throws Exception {
    LineBatch batch = KafkaTestData.batch(0, 14, 3);
    LogRecordEncoder encoder = new LogRecordEncoder(KafkaTestData.CATALOG);
    SpecificDatumReader<LogRecord> reader = new SpecificDatumReader<>(LogRecord.class);
    for (int k = 0; k < batch.count(); k++) {
      long seq = 14 + k;
      LogRecord r = reader.read(null, DecoderFactory.get().binaryDecoder(encoder.encode(batch, k), null));
      assertThat(r.getSeq()).isEqualTo(seq);
      assertThat(r.getTimestampMillis()).isEqualTo(KafkaTestData.millis(seq));
      assertThat(r.getTimestampNanos()).isEqualTo(LineBatch.distinctNanos(KafkaTestData.millis(seq), seq));
      assertThat(r.getTimestampNanos() % 1_000_000L).isNotZero();
      assertThat(r.getLabels()).isEqualTo(Map.of("app", "logbench", "stream", "s" + (seq % 3)));
      assertThat(r.getLine()).isEqualTo(KafkaTestData.line(seq));
    }
    // line 14 carries non-ASCII text: its UTF-8 bytes went through unchanged
    assertThat(KafkaTestData.line(14)).contains("größe");
  }

  @Test
  void keysRenderLabelsInCatalogOrderWithEscapes() {
    assertThat(new String(StreamKeys.of(KafkaTestData.CATALOG).key(2), StandardCharsets.UTF_8))
        .isEqualTo("{app=\"logbench\",stream=\"s2\"}");
    Map<String, String> odd = new LinkedHashMap<>();
    odd.put("path", "/a\"b\\c");
    assertThat(new String(StreamKeys.render(odd), StandardCharsets.UTF_8))
        .isEqualTo("{path=\"/a\\\"b\\\\c\"}");
  }
}
