package io.logbench.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link LedgerKafka}'s command-line form, record keys and Avro rows, without a broker. */
class LedgerKafkaTest {

  @Test
  void parsesBootstrapWithAndWithoutTopic() {
    assertThat(LedgerKafka.parse("127.0.0.1:9092")).isEqualTo(new LedgerKafka("127.0.0.1:9092", "logbench-ledger"));
    assertThat(LedgerKafka.parse("a:9092,b:9092/ledger-x")).isEqualTo(new LedgerKafka("a:9092,b:9092", "ledger-x"));
    assertThat(new LedgerKafka("a:9092", "t").runsTopic()).isEqualTo("t.runs");
    for (String bad : new String[] {"", "/topic", "a:9092/", "a:9092/x/y"}) {
      assertThatThrownBy(() -> LedgerKafka.parse(bad)).as(bad)
          .hasMessage("'" + bad + "' is not a ledger topic; expected BOOTSTRAP or BOOTSTRAP/TOPIC, such as"
              + " 127.0.0.1:9092/logbench-ledger.");
    }
  }

  @Test
  void rowsAreKeyedAndStampedWithTheRunIdNotTheRunName() throws Exception {
    LedgerEntry row = new LedgerEntry("opensearch", 60_000, 120_000, 10, 10, 7, Map.of("400", 3L));
    io.logbench.schemas.LedgerEntry avro = new LedgerKafka.ToAvro("quickstart-20261130-121314-3f2a").map(row);
    assertThat(avro.getRun()).isEqualTo("quickstart-20261130-121314-3f2a");
    assertThat(avro.getAcked()).isEqualTo(7);
    assertThat(avro.getRejected()).isEqualTo(Map.of("400", 3L));
    assertThat(new String(LedgerKafka.key(avro.getRun(), avro.getBackend(), avro.getWindowStartMillis()),
        StandardCharsets.UTF_8)).isEqualTo("quickstart-20261130-121314-3f2a/opensearch/60000");
  }

  @Test
  void recordsTakeTheProducersTimeNotTheElementsWhichADrainSetsToLongMax() throws Exception {
    io.logbench.schemas.LedgerEntry avro = new LedgerKafka.ToAvro("r-1")
        .map(new LedgerEntry("files", 0, 60_000, 5, 5, 5, Map.of()));
    var record = new LedgerKafka.Records("ledger").serialize(avro, null, Long.MAX_VALUE);
    assertThat(record.timestamp()).isNull();
    assertThat(record.topic()).isEqualTo("ledger");
    assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("r-1/files/0");
    io.logbench.schemas.LedgerEntry back = new org.apache.avro.specific.SpecificDatumReader<>(
        io.logbench.schemas.LedgerEntry.class).read(null,
        org.apache.avro.io.DecoderFactory.get().binaryDecoder(record.value(), null));
    assertThat(back).isEqualTo(avro);
  }
}
