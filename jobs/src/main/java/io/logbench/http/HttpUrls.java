package io.logbench.http;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import java.net.URI;
import java.net.URISyntaxException;

/** Reads a backend's base URL from a run file: http or https, a host, no query; no trailing slash. */
public final class HttpUrls {

  private HttpUrls() {}

  /** The required {@code key} of {@code block} as a base URL without a trailing slash. */
  public static String baseUrl(ConfigNode block, String key, String example) {
    String url = block.string(key, null);
    if (url == null) {
      throw ConfigException.missing(
          block.path().isEmpty() ? key : block.path() + "." + key, "a base URL such as " + example);
    }
    try {
      URI uri = new URI(url);
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null
          || uri.getRawQuery() != null
          || uri.getRawFragment() != null
          || uri.getRawUserInfo() != null) {
        throw new URISyntaxException(url, "not a plain http(s) base URL");
      }
    } catch (URISyntaxException e) {
      throw block.invalid(key, url, "an http or https base URL without credentials or query, such as " + example);
    }
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
