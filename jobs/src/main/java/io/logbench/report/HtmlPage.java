package io.logbench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes a {@link ReportDocument} as one self-contained HTML page: uPlot's script and stylesheet
 * (read from its webjar on the class path), the page's own script and stylesheet, and the
 * document as JSON in a {@code <script type="application/json">} block, all inlined. The page
 * loads nothing (its Content-Security-Policy forbids any fetch), so it opens offline and from an
 * e-mail attachment alike.
 *
 * <p>The JSON escapes {@code <}, {@code >}, {@code &} and {@code '} as {@code \u003c}-style
 * escapes, so no value (a backend name, a verdict detail, a run file) can close the script block
 * or open a comment; the script draws every text with {@code textContent}, never as HTML.
 */
public final class HtmlPage {

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z.]+)}}");
  private static final ObjectMapper JSON = new ObjectMapper();

  static {
    JSON.getFactory().setCharacterEscapes(new HtmlSafeEscapes());
  }

  private HtmlPage() {}

  /** The page of {@code doc}. */
  public static String render(ReportDocument doc, Versions versions) {
    String uplot = "META-INF/resources/webjars/uplot/" + versions.uplot() + "/dist/";
    Map<String, String> parts = Map.of(
        "title", escapeHtml(doc.title()),
        "version", escapeHtml(versions.logbench()),
        "uplot.css", inlineable(resource(uplot + "uPlot.min.css"), "</style", "uPlot's stylesheet"),
        "report.css", inlineable(resource("io/logbench/report/report.css"), "</style", "report.css"),
        "uplot.js", inlineable(resource(uplot + "uPlot.iife.min.js"), "</script", "uPlot's script"),
        "report.js", inlineable(resource("io/logbench/report/report.js"), "</script", "report.js"),
        "data", json(doc));
    // one pass over the template: what is put in is never searched for placeholders again
    Matcher m = PLACEHOLDER.matcher(resource("io/logbench/report/page.html"));
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String part = parts.get(m.group(1));
      if (part == null) {
        throw new IllegalStateException("page.html has the unknown placeholder " + m.group() + ".");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(part));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** {@code doc} as JSON that is safe inside a script element. */
  static String json(ReportDocument doc) {
    try {
      return JSON.writeValueAsString(doc);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("The report could not be written as JSON: " + e.getMessage(), e);
    }
  }

  static String escapeHtml(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** {@code text}, checked not to end the element it is inlined into. */
  private static String inlineable(String text, String closing, String what) {
    String lower = text.toLowerCase(Locale.ROOT);
    if (lower.contains(closing) || lower.contains("<!--")) {
      throw new IllegalStateException(what + " holds " + closing + " or <!--, so it cannot be inlined into"
          + " the page as it is.");
    }
    return text;
  }

  private static String resource(String path) {
    try (InputStream in = HtmlPage.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is not on the class path; the report needs it (for uPlot:"
            + " the org.webjars.npm:uplot jar of the version in versions.properties).");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** JSON string escapes for text inside an HTML script element. */
  private static final class HtmlSafeEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] escapes;

    HtmlSafeEscapes() {
      escapes = CharacterEscapes.standardAsciiEscapesForJSON();
      for (char c : new char[] {'<', '>', '&', '\''}) {
        escapes[c] = CharacterEscapes.ESCAPE_STANDARD;
      }
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return escapes;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      // none beyond ASCII: the block is read with JSON.parse, never run as script
      return null;
    }
  }
}
