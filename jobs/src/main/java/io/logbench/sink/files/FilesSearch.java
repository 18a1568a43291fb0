package io.logbench.sink.files;

import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.KeyedSearch;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The keyed search of a {@code files} backend, which has no search language: one pass over the
 * day files through the count reader (each line at the time the count reader gives it), each line
 * filed by the value of its JSON field named like the key ({@code "status":"200"} in an
 * nginx-month line, {@code "container":"k6-7"} in an app-json one). A line without the field
 * counts under the value "".
 */
public final class FilesSearch implements KeyedSearch {

  private final FilesCountReader reader;
  private final Path dir;
  private final AtomicLong passes = new AtomicLong();

  FilesSearch(FilesCountReader reader, Path dir) {
    this.reader = reader;
    this.dir = dir;
  }

  @Override
  public String language() {
    return "scan";
  }

  @Override
  public String text(KeyedQuery q) {
    return "read " + dir + "/*.log; count lines by time bucket and their \"" + q.key() + "\" field";
  }

  @Override
  public KeyedAnswer search(KeyedQuery q) throws IOException {
    KeyedAnswer answer = new KeyedAnswer(q);
    String field = "\"" + q.key() + "\":\"";
    passes.incrementAndGet();
    reader.pass((millis, seq, text) -> {
      int k = q.bucketOf(millis);
      if (k >= 0) {
        answer.add(k, value(text, field), 1);
      }
      return true;
    });
    return answer;
  }

  /** The string value of {@code field} (its {@code "name":"} prefix) in {@code line}, or "". */
  static String value(String line, String field) {
    int at = line.indexOf(field);
    if (at < 0) {
      return "";
    }
    int from = at + field.length();
    int to = line.indexOf('"', from);
    return to < 0 ? "" : line.substring(from, to);
  }

  @Override
  public long requests() {
    return passes.get();
  }

  @Override
  public void close() {
    reader.close();
  }
}
