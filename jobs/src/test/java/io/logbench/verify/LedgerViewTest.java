package io.logbench.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LedgerView#files} on the ledger files generate writes while a run goes and after. */
class LedgerViewTest {

  private static final long T0 = 1_619_838_000_000L;

  @TempDir Path runDir;

  private static LedgerEntry row(String backend, int k, long acked) {
    return new LedgerEntry(backend, T0 + k * 2000L, T0 + (k + 1) * 2000L, 1000, acked, acked, Map.of());
  }

  private void append(Path file, String text) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @Test
  void readsEachBackendsLiveLogSkippingAnUnfinishedLineThenItsCsvAsFinal() throws Exception {
    LedgerView view = LedgerView.files(runDir, false);
    assertThat(view.read("loki").rows()).isEmpty();

    Path log = runDir.resolve("ledger").resolve("loki").resolve(LedgerFiles.JSONL);
    String first = LedgerFiles.jsonRow(row("loki", 0, 400), ZoneOffset.UTC);
    String again = LedgerFiles.jsonRow(row("loki", 0, 1000), ZoneOffset.UTC);
    String next = LedgerFiles.jsonRow(row("loki", 1, 1000), ZoneOffset.UTC);
    append(log, first + "\n" + again + "\n" + next.substring(0, 20));
    LedgerView.Snapshot s = view.read("loki");
    assertThat(s.isFinal()).isFalse();
    assertThat(s.rows()).containsOnlyKeys(T0);
    assertThat(s.rows().get(T0).acked()).isEqualTo(1000);
    assertThat(view.read("vl").rows()).isEmpty();

    append(log, next.substring(20) + "\n");
    assertThat(view.read("loki").rows()).containsOnlyKeys(T0, T0 + 2000);

    LedgerFiles.writeCsv(log.getParent(), List.of(row("loki", 0, 1000), row("loki", 1, 1000)), ZoneOffset.UTC);
    assertThat(view.read("loki").isFinal()).as("the backend's own ledger.csv").isTrue();
    assertThat(view.read("vl").isFinal()).isFalse();

    LedgerFiles.writeCsv(runDir, List.of(row("loki", 0, 1000), row("vl", 0, 999)), ZoneOffset.UTC);
    s = view.read("vl");
    assertThat(s.isFinal()).as("the run's merged ledger.csv").isTrue();
    assertThat(s.rows().get(T0).acked()).isEqualTo(999);
    assertThat(view.read("loki").rows()).as("the merged ledger wins").containsOnlyKeys(T0);
  }
}
