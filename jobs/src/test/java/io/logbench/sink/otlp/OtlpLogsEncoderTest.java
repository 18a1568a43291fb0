package io.logbench.sink.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.otlp.internal.OtlpLogsEncoder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reads what the encoder wrote back by the field numbers of opentelemetry-proto's logs/v1. */
class OtlpLogsEncoderTest {

  /** A decoded resource: its attributes, its scope's name, its records (time, body, attributes, observed time). */
  record Resource(Map<String, String> attributes, String scope, List<Object[]> records) {}

  static List<Resource> decode(byte[] request) throws Exception {
    List<Resource> out = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(request);
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      assertThat(tag >>> 3).as("ExportLogsServiceRequest.resource_logs").isEqualTo(1);
      CodedInputStream rl = CodedInputStream.newInstance(in.readByteArray());
      Map<String, String> attrs = new LinkedHashMap<>();
      String scope = null;
      List<Object[]> records = new ArrayList<>();
      for (int t = rl.readTag(); t != 0; t = rl.readTag()) {
        if (t >>> 3 == 1) { // Resource
          CodedInputStream r = CodedInputStream.newInstance(rl.readByteArray());
          for (int a = r.readTag(); a != 0; a = r.readTag()) {
            attrs.putAll(keyValue(r.readByteArray()));
          }
        } else { // ScopeLogs
          assertThat(t >>> 3).isEqualTo(2);
          CodedInputStream sl = CodedInputStream.newInstance(rl.readByteArray());
          for (int s = sl.readTag(); s != 0; s = sl.readTag()) {
            if (s >>> 3 == 1) {
              CodedInputStream scopeIn = CodedInputStream.newInstance(sl.readByteArray());
              scopeIn.readTag();
              scope = scopeIn.readString();
            } else {
              records.add(record(sl.readByteArray()));
            }
          }
        }
      }
      out.add(new Resource(attrs, scope, records));
    }
    return out;
  }

  private static Map<String, String> keyValue(byte[] kv) throws Exception {
    CodedInputStream in = CodedInputStream.newInstance(kv);
    in.readTag();
    String key = in.readString();
    in.readTag();
    CodedInputStream any = CodedInputStream.newInstance(in.readByteArray());
    assertThat(any.readTag() >>> 3).as("AnyValue.string_value").isEqualTo(1);
    return Map.of(key, any.readString());
  }

  private static Object[] record(byte[] bytes) throws Exception {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    long time = 0;
    long observed = 0;
    String body = null;
    Map<String, String> attrs = new LinkedHashMap<>();
    for (int t = in.readTag(); t != 0; t = in.readTag()) {
      switch (t >>> 3) {
        case 1 -> time = in.readFixed64();
        case 5 -> {
          CodedInputStream any = CodedInputStream.newInstance(in.readByteArray());
          any.readTag();
          body = any.readString();
        }
        case 6 -> attrs.putAll(keyValue(in.readByteArray()));
        case 11 -> observed = in.readFixed64();
        default -> throw new AssertionError("unexpected LogRecord field " + (t >>> 3));
      }
    }
    return new Object[] {time, body, attrs, observed};
  }

  @Test
  void eachStreamIsAResourceAndEachLineARecordWithItsDistinctNanosecond() throws Exception {
    OtlpLogsEncoder e = new OtlpLogsEncoder(List.of(Map.of("container", "k6-0"), Map.of("container", "k6-1")),
        Map.of("service.name", "logbench"), Map.of("logbench_run", "r-1"));
    LineBatch b = new LineBatch();
    b.reset(0, 41);
    for (int i = 0; i < 3; i++) {
      byte[] l = ("line " + i).getBytes(StandardCharsets.UTF_8);
      b.append(l, 0, l.length, 1_000 + i, i % 2);
    }
    JsonBytes out = new JsonBytes(16);
    e.encode(b, out);
    List<Resource> rs = decode(out.toByteArray());
    assertThat(rs).hasSize(2);
    assertThat(rs.get(0).attributes()).containsExactly(Map.entry("service.name", "logbench"),
        Map.entry("container", "k6-0"));
    assertThat(rs.get(0).scope()).isEqualTo("logbench");
    assertThat(rs.get(0).records()).hasSize(2);
    Object[] first = rs.get(0).records().get(0);
    assertThat(first[0]).isEqualTo(LineBatch.distinctNanos(1_000, 41));
    assertThat(first[1]).isEqualTo("line 0");
    assertThat(first[2]).isEqualTo(Map.of("logbench_run", "r-1"));
    assertThat(first[3]).isEqualTo(first[0]);
    assertThat(rs.get(0).records().get(1)[1]).isEqualTo("line 2");
    assertThat(rs.get(1).records().get(0)[1]).isEqualTo("line 1");
  }

  @Test
  void aPartialSuccessRejectsTheLinesItNamesAndAnEmptyAnswerTakesAll() throws Exception {
    LineBatch b = new LineBatch();
    b.reset(0, 0);
    for (int i = 0; i < 4; i++) {
      b.append(new byte[] {'x'}, 0, 1, 0, 0);
    }
    ByteArrayOutputStream partial = new ByteArrayOutputStream();
    CodedOutputStream o = CodedOutputStream.newInstance(partial);
    ByteArrayOutputStream inner = new ByteArrayOutputStream();
    CodedOutputStream io = CodedOutputStream.newInstance(inner);
    io.writeInt64(1, 3);
    io.writeString(2, "too old");
    io.flush();
    o.writeByteArray(1, inner.toByteArray());
    o.flush();
    SendResult r = OtlpPush.classify(b, 200, partial.toByteArray());
    assertThat(r.kind()).isEqualTo(SendResult.Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.rejectedCount()).isEqualTo(3);
    assertThat(OtlpPush.classify(b, 200, new byte[0]).kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    assertThat(OtlpPush.classify(b, 200, "{}".getBytes(StandardCharsets.UTF_8)).kind())
        .isEqualTo(SendResult.Kind.ACCEPTED);
    assertThat(OtlpPush.classify(b, 503, new byte[0]).kind()).isEqualTo(SendResult.Kind.RETRYABLE);
    assertThat(OtlpPush.classify(b, 400, "bad".getBytes(StandardCharsets.UTF_8)).kind())
        .isEqualTo(SendResult.Kind.FATAL);
  }
}
