package io.logbench.sink.otlp;

import com.google.protobuf.CodedInputStream;
import io.logbench.dataset.LineBatch;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.http.HttpPushSender;
import io.logbench.sink.otlp.internal.OtlpLogsEncoder;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * OTLP/HTTP logs over the HTTP push skeleton ({@link HttpPushSender}): each batch one {@code
 * ExportLogsServiceRequest} in protobuf ({@link OtlpLogsEncoder}) posted as {@code
 * application/x-protobuf}, and the answer classified: a 2xx is the batch taken, less the {@code
 * partial_success.rejected_log_records} its {@code ExportLogsServiceResponse} may name (rejected
 * for good under {@code partial_success}); 429 and 5xx retryable (the OTLP specification retries
 * 429, 502, 503 and 504; logbench also retries 500, as for every backend); other 4xx fatal. The
 * one sender of the {@code otlp} write and of Loki's and VictoriaLogs' {@code format: otlp}.
 */
public final class OtlpPush {

  /** The content type of OTLP/HTTP protobuf. */
  public static final String CONTENT_TYPE = "application/x-protobuf";

  private OtlpPush() {}

  /**
   * A sender posting to {@code uri} (such as {@code http://127.0.0.1:4318/v1/logs}).
   *
   * @param name names the backend in messages
   * @param headers fixed headers (tenant, auth)
   * @param labels each stream's labels, as resource attributes
   * @param resource attributes every resource gets besides its labels
   * @param attributes attributes of every log record
   */
  public static BatchSender open(URI uri, String name, Map<String, String> headers, Duration timeout, TlsSettings tls,
      List<Map<String, String>> labels, Map<String, String> resource, Map<String, String> attributes) {
    OtlpLogsEncoder encoder = new OtlpLogsEncoder(labels, resource, attributes);
    return HttpPushSender.builder(uri, name).headers(headers).connectTimeout(timeout).requestTimeout(timeout)
        .tls(tls)
        .encoder((batch, lines, out) -> {
          encoder.encode(batch, out);
          return CONTENT_TYPE;
        })
        .classifier((batch, lines, status, body) -> classify(batch, status, body))
        .build();
  }

  /** The class of an OTLP/HTTP answer {@code status} with {@code body} to a push of {@code batch}. */
  static SendResult classify(LineBatch batch, int status, byte[] body) {
    int lines = batch.count();
    if (status < 200 || status >= 300) {
      return HttpAnswers.byStatus(lines, status, body);
    }
    long rejected = rejected(body);
    if (rejected <= 0) {
      return SendResult.accepted(lines, status);
    }
    int n = (int) Math.min(lines, rejected);
    return new SendResult(n == lines ? SendResult.Kind.FATAL : SendResult.Kind.PARTIAL, status, lines - n,
        List.of(new SendResult.Rejection("partial_success", n, null)), new java.util.BitSet(),
        "the server rejected " + n + " of " + lines + " log records (partial_success)");
  }

  /**
   * {@code partial_success.rejected_log_records} (field 1, then field 1) of an {@code
   * ExportLogsServiceResponse}; 0 for an empty body, a JSON one or one that does not parse.
   */
  static long rejected(byte[] body) {
    if (body == null || body.length == 0 || body[0] == '{') {
      return 0;
    }
    try {
      CodedInputStream in = CodedInputStream.newInstance(body);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag == ((1 << 3) | 2)) {
          CodedInputStream partial = CodedInputStream.newInstance(in.readByteArray());
          for (int t = partial.readTag(); t != 0; t = partial.readTag()) {
            if (t == ((1 << 3) | 0)) {
              return partial.readInt64();
            }
            partial.skipField(t);
          }
          return 0;
        }
        in.skipField(tag);
      }
    } catch (IOException e) {
      return 0;
    }
    return 0;
  }
}
