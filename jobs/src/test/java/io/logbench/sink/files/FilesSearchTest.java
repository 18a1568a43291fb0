package io.logbench.sink.files;

import static io.logbench.query.NginxLines.assertSameCells;
import static io.logbench.query.NginxLines.query;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.NginxLines;
import io.logbench.sink.Specs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FilesSearch: one pass over the day files, each line by its time and its JSON field. */
class FilesSearchTest {

  @TempDir Path dir;

  @Test
  void countsTheDayFilesLinesByTheirStatusAndPathFields() throws IOException {
    NginxLines lines = new NginxLines("2021-05-01T00:59:50-03:00", 4_000);
    StringBuilder day = new StringBuilder();
    for (LineBatch b : lines.batches(1000)) {
      for (int k = 0; k < b.count(); k++) {
        day.append(new String(b.data(), b.start(k), b.length(k), StandardCharsets.UTF_8)).append('\n');
      }
    }
    Files.writeString(dir.resolve("2021-05-01.log"), day);
    FilesBackend spec = Specs.parse(FilesBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(
        "kind: files\ndir: " + dir + "\n"), "backends[0]"));
    try (FilesSearch search = spec.openSearch(lines.run("run-1"))) {
      for (String key : new String[] {"status", "path"}) {
        KeyedQuery q = query(key, "2021-05-01T00:59:30-03:00", "2021-05-01T01:01:00-03:00", 30_000);
        KeyedAnswer answer = search.search(q);
        assertSameCells(answer, lines.expected(q));
        assertThat(answer.total()).isEqualTo(4_000);
      }
      assertThat(search.requests()).isEqualTo(2);
    }
  }

  @Test
  void aLineWithoutTheFieldHasTheEmptyValue() {
    assertThat(FilesSearch.value("{ \"time\":\"[01/May/2021:00:00:00.000 -0300]\", \"path\":\"page7\", \"status\":"
        + "\"404\" }", "\"status\":\"")).isEqualTo("404");
    assertThat(FilesSearch.value("{\"level\":\"info\"}", "\"status\":\"")).isEmpty();
  }
}
