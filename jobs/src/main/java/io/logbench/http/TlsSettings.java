package io.logbench.http;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a sender trusts an https backend and proves who it is: a CA bundle to trust instead of the
 * JDK's, a client certificate and key (PEM, the key unencrypted PKCS#8) for mutual TLS, or, for
 * tests against self-signed servers only, no verification at all ({@code insecure}).
 *
 * @param caFile PEM file of the CA certificates to trust, or null for the JDK's trusted CAs
 * @param certFile PEM file of the client certificate chain, or null for none
 * @param keyFile PEM file of the client certificate's private key (PKCS#8), or null for none
 * @param insecure trust any server certificate and skip the host name check
 */
public record TlsSettings(String caFile, String certFile, String keyFile, boolean insecure)
    implements Serializable {

  /** The JDK's trusted CAs, no client certificate, host names checked. */
  public static final TlsSettings DEFAULT = new TlsSettings(null, null, null, false);

  /** The keys of a {@code tls} block. */
  public static final java.util.List<String> KEYS = java.util.List.of("ca_file", "cert_file", "key_file", "insecure");

  /**
   * Reads the {@code tls} mapping of a backend block ({@link #DEFAULT} when absent): each file must
   * be readable, {@code cert_file} and {@code key_file} come together, and {@code insecure} is
   * {@code true} or {@code false}.
   */
  public static TlsSettings parse(ConfigNode block) {
    if (!block.has("tls")) {
      return DEFAULT;
    }
    ConfigNode tls = block.mapping("tls").allowOnly(KEYS.toArray(String[]::new));
    String ca = file(tls, "ca_file");
    String cert = file(tls, "cert_file");
    String key = file(tls, "key_file");
    String at = tls.path().isEmpty() ? "" : tls.path() + ".";
    if (cert != null && key == null) {
      throw ConfigException.missing(at + "key_file", "the PEM file of the client key, since cert_file is set");
    }
    if (key != null && cert == null) {
      throw ConfigException.missing(at + "cert_file", "the PEM file of the client certificate, since key_file is set");
    }
    boolean insecure = "true".equals(tls.choice("insecure", "false", "true", "false"));
    if (insecure && ca != null) {
      throw tls.invalid("insecure", "true", "false when ca_file is set (insecure trusts every certificate, so"
          + " ca_file would be ignored)");
    }
    return new TlsSettings(ca, cert, key, insecure);
  }

  private static String file(ConfigNode tls, String key) {
    String path = tls.string(key, null);
    if (path != null && !Files.isReadable(Path.of(path))) {
      throw tls.invalid(key, path, "a readable PEM file");
    }
    return path;
  }

  public boolean isDefault() {
    return caFile == null && certFile == null && keyFile == null && !insecure;
  }
}
