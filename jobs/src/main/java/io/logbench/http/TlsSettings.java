package io.logbench.http;

import java.io.Serializable;

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

  public boolean isDefault() {
    return caFile == null && certFile == null && keyFile == null && !insecure;
  }
}
