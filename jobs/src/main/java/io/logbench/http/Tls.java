package io.logbench.http;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.File;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the client TLS context of a transport from its {@link TlsSettings}, and the same trust
 * and keys as a JDK {@link SSLContext} for the JDK HttpClient of count reads and searches.
 */
final class Tls {

  private static final Logger LOG = LoggerFactory.getLogger(Tls.class);

  /** Backends already warned about {@code tls.insecure}, so each is warned once per JVM. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private Tls() {}

  static SslContext clientContext(TlsSettings tls, String name) {
    return build(tls, name, SslContextBuilder.forClient());
  }

  /**
   * The same trust and keys for the JDK HttpClient. Netty reads the PEM files, so both clients
   * accept the same files; with {@code insecure} its trust manager is an extended one, which the
   * JDK does not wrap with a host name check.
   */
  static SSLContext jdkContext(TlsSettings tls, String name) {
    return ((JdkSslContext) build(tls, name, SslContextBuilder.forClient().sslProvider(SslProvider.JDK))).context();
  }

  private static SslContext build(TlsSettings tls, String name, SslContextBuilder b) {
    if (tls.insecure()) {
      if (WARNED.add(name)) {
        LOG.warn("TLS VERIFICATION IS OFF for {} (tls.insecure: true): any server certificate is trusted and its "
            + "host name is not checked, so anyone on the path can read and change this traffic. Use tls.ca_file "
            + "instead outside tests.", name);
      }
      b.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (tls.caFile() != null) {
      b.trustManager(readable(tls.caFile(), "tls.ca_file", name));
    }
    if (tls.certFile() != null) {
      b.keyManager(readable(tls.certFile(), "tls.cert_file", name), readable(tls.keyFile(), "tls.key_file", name));
    }
    try {
      return b.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalStateException("The TLS settings of " + name + " could not be used: " + e.getMessage()
          + " (tls.ca_file and tls.cert_file take PEM certificates, tls.key_file an unencrypted PKCS#8 PEM key).", e);
    }
  }

  private static File readable(String path, String key, String name) {
    File f = new File(path);
    if (!f.canRead()) {
      throw new IllegalStateException(
          "The file " + path + " given as " + key + " of " + name + " cannot be read; expected a readable PEM file.");
    }
    return f;
  }
}
