package io.logbench.sink.http;

import io.logbench.sink.SendResult;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;

/**
 * The classification every HTTP backend shares: 2xx accepted, 429 and 5xx retryable, other
 * statuses fatal, I/O errors ({@code "io"}) and timeouts ({@code "timeout"}) retryable with
 * status 0.
 */
public final class HttpAnswers {

  /** Detail of a send that got no answer within the request timeout. */
  public static final String TIMEOUT = "timeout";
  /** Detail of a send that failed with an I/O error (refused, reset, closed). */
  public static final String IO = "io";

  private HttpAnswers() {}

  public static boolean retryable(int status) {
    return status == 429 || status >= 500;
  }

  /** The result of a send that threw instead of answering. */
  public static SendResult failure(int lines, Throwable error) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return SendResult.retryable(lines, 0, e instanceof HttpTimeoutException ? TIMEOUT : IO);
  }

  /** The result of any status outside 2xx, by status alone: retryable or fatal. */
  public static SendResult byStatus(int lines, int status, byte[] body) {
    String text = text(body);
    if (retryable(status)) {
      return SendResult.retryable(lines, status, status + " " + shortText(text));
    }
    return SendResult.fatal(lines, status, reason(status, text), text);
  }

  /** A stable, short reason such as {@code "401 no org id"}. */
  public static String reason(int status, String body) {
    String s = shortText(body);
    return s.isEmpty() ? Integer.toString(status) : status + " " + s;
  }

  /** The body as text, printable characters only. */
  public static String text(byte[] body) {
    if (body == null) {
      return "";
    }
    String s = new String(body, 0, Math.min(body.length, 1 << 20), StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      b.append(c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f && c != '\ufffd') ? c : '?');
    }
    return b.toString().strip();
  }

  /** First line of a body, cut at its first colon and at 60 characters. */
  public static String shortText(String body) {
    String s = body == null ? "" : body.strip();
    int nl = s.indexOf('\n');
    if (nl >= 0) {
      s = s.substring(0, nl);
    }
    int colon = s.indexOf(':');
    if (colon > 0) {
      s = s.substring(0, colon);
    }
    s = s.strip();
    return s.length() <= 60 ? s : s.substring(0, 60);
  }
}
