package io.logbench.sink.syslog;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.RunContext;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The {@code syslog} write: RFC 5424 messages to an agent's syslog input (Fluent Bit's {@code
 * syslog}, Vector's {@code syslog}, rsyslog, an OpenTelemetry Collector's {@code syslog}
 * receiver), over TCP with octet counting (RFC 6587) or over UDP (RFC 5426), one message per
 * line with the line as MSG. Keys: {@code address} ({@code host:port}, required), {@code
 * transport} ({@code tcp}, the default, or {@code udp}), {@code hostname} and {@code app_name}
 * (default {@value #DEFAULT_NAME}), {@code facility} (0 to 23, default 1: user) and {@code
 * severity} (0 to 7, default 6: informational). Nothing to count back here: count blocks behind
 * the write count where the agent delivers.
 *
 * @param timeout the connect timeout (the {@code timeout} key)
 */
public record SyslogBackend(String name, String host, int port, Transport transport, String hostname,
    String appName, int facility, int severity, Duration timeout) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "syslog";
  public static final String DEFAULT_NAME = "logbench";

  public static final BackendType TYPE = BackendType.of(KIND,
      List.of("address", "transport", "hostname", "app_name", "facility", "severity"), SyslogBackend::parse);

  /** How messages travel. */
  public enum Transport {
    /** A TCP connection, messages framed by octet counting. */
    TCP,
    /** A datagram per message. */
    UDP
  }

  public SyslogBackend {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(transport, "transport");
  }

  static SyslogBackend parse(ConfigNode block, CommonSettings common) {
    String address = block.string("address", null);
    if (address == null) {
      throw ConfigException.missing(block.path() + ".address", "the agent's syslog input as host:port, such as"
          + " 127.0.0.1:5140");
    }
    int colon = address.lastIndexOf(':');
    int port = -1;
    if (colon > 0) {
      try {
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (port < 1 || port > 65535) {
      throw block.invalid("address", address, "host:port with a port from 1 to 65535, such as 127.0.0.1:5140");
    }
    String host = address.substring(0, colon);
    Transport transport = Transport.valueOf(block.choice("transport", "tcp", "tcp", "udp").toUpperCase(Locale.ROOT));
    String hostname = field(block, "hostname");
    String appName = field(block, "app_name");
    int facility = (int) block.integer("facility", 1, 0, 23, "a syslog facility from 0 to 23");
    int severity = (int) block.integer("severity", 6, 0, 7, "a syslog severity from 0 to 7");
    return new SyslogBackend(common.name(), host, port, transport, hostname, appName, facility, severity,
        common.timeout());
  }

  /** An RFC 5424 header field: 1 to 48 printable ASCII characters, no spaces. */
  private static String field(ConfigNode block, String key) {
    String v = block.string(key, DEFAULT_NAME);
    if (!v.matches("[!-~]{1,48}")) {
      throw block.invalid(key, v, "1 to 48 printable ASCII characters without spaces (RFC 5424)");
    }
    return v;
  }

  /** The PRI value: facility * 8 + severity. */
  public int priority() {
    return facility * 8 + severity;
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public BatchSender open(RunContext run) {
    return new SyslogSender(this);
  }
}
