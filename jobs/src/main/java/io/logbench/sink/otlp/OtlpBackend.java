package io.logbench.sink.otlp;

import io.logbench.config.ConfigNode;
import io.logbench.http.HttpUrls;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.otlp.internal.OtlpLogsEncoder;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code otlp} write: OpenTelemetry logs over OTLP/HTTP in protobuf ({@link OtlpPush}) to an
 * agent's OTLP input (Fluent Bit's {@code opentelemetry}, an OpenTelemetry Collector's {@code otlp}
 * receiver, Vector's {@code opentelemetry} source). Each stream is a resource with its labels and
 * {@code service.name} as attributes; each line a log record with the line as its body and its
 * own timestamp. Keys: {@code url} (the receiver's base URL, default {@value #DEFAULT_URL}),
 * {@code path} (default {@value #DEFAULT_PATH}), {@code service_name} (default {@value
 * #DEFAULT_SERVICE}), {@code tls}. Nothing to count back here: count blocks behind the write count
 * where the agent delivers. Loki and VictoriaLogs take the same requests directly with their own
 * {@code format: otlp}.
 */
public record OtlpBackend(String name, URI url, String serviceName, java.time.Duration timeout, TlsSettings tls)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "otlp";
  public static final String DEFAULT_URL = "http://127.0.0.1:4318";
  public static final String DEFAULT_PATH = "/v1/logs";
  public static final String DEFAULT_SERVICE = "logbench";

  public static final BackendType TYPE = BackendType.of(KIND, List.of("url", "path", "service_name", "tls"),
      OtlpBackend::parse);

  public OtlpBackend {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(serviceName, "serviceName");
  }

  static OtlpBackend parse(ConfigNode block, CommonSettings common) {
    String base = HttpUrls.baseUrl(block, "url", DEFAULT_URL);
    String path = block.string("path", DEFAULT_PATH);
    if (!path.startsWith("/")) {
      throw block.invalid("path", path, "a path that starts with /, such as " + DEFAULT_PATH);
    }
    String service = block.string("service_name", DEFAULT_SERVICE);
    if (service.isBlank()) {
      throw block.invalid("service_name", service, "a non-empty service.name");
    }
    return new OtlpBackend(common.name(), URI.create(base + path), service, common.timeout(), TlsSettings.parse(block));
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public BatchSender open(RunContext run) {
    return OtlpPush.open(url, "write " + name, Map.of(), timeout, tls, OtlpLogsEncoder.labels(run.streams()),
        Map.of("service.name", serviceName), Map.of());
  }
}
