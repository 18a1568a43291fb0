package io.logbench.ledger.stream;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Writes the ledger's files (parallelism 1): keeps the latest row of every key, appends each
 * changed row to {@value LedgerFiles#JSONL} when asked to, and when the input ends writes {@value
 * LedgerFiles#CSV} and {@value RunSummary#FILE}. The latest rows and the log's length are
 * checkpointed; a restore truncates the log to that length, so it holds no row twice.
 */
public final class LedgerFilesWriter extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<LedgerEntry, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final String runDir;
  private final String zone;
  private final boolean upsertLog;

  private transient TreeMap<LedgerEntry.Key, LedgerEntry> latest;
  private transient ListState<LedgerEntry> latestState;
  private transient ListState<Long> logLengthState;
  private transient FileChannel log;
  private transient long logLength;
  private transient StringBuilder pendingLog;

  public LedgerFilesWriter(String runDir, String zone, boolean upsertLog) {
    this.runDir = runDir;
    this.zone = zone;
    this.upsertLog = upsertLog;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    latestState =
        context.getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("ledger-rows", TypeInformation.of(LedgerEntry.class)));
    logLengthState =
        context.getOperatorStateStore().getListState(new ListStateDescriptor<>("ledger-log-length", Types.LONG));
    latest = new TreeMap<>();
    pendingLog = new StringBuilder();
    logLength = 0;
    Path dir = Path.of(runDir);
    Files.createDirectories(dir);
    if (context.isRestored()) {
      for (LedgerEntry e : latestState.get()) {
        latest.put(e.key(), e);
      }
      for (Long n : logLengthState.get()) {
        logLength = n;
      }
    }
    if (upsertLog) {
      log = FileChannel.open(dir.resolve(LedgerFiles.JSONL), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      // rows appended after the checkpoint come again from the restored upstream
      log.truncate(logLength);
    }
  }

  @Override
  public void processElement(StreamRecord<LedgerEntry> element) throws Exception {
    LedgerEntry e = element.getValue();
    latest.put(e.key(), e);
    if (upsertLog) {
      pendingLog.append(LedgerFiles.jsonRow(e, ZoneId.of(zone))).append('\n');
      if (pendingLog.length() > 1 << 16) {
        flushLog();
      }
    }
  }

  private void flushLog() throws Exception {
    if (log == null || pendingLog.length() == 0) {
      return;
    }
    ByteBuffer bytes = ByteBuffer.wrap(pendingLog.toString().getBytes(StandardCharsets.UTF_8));
    while (bytes.hasRemaining()) {
      logLength += log.write(bytes, logLength);
    }
    pendingLog.setLength(0);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    flushLog();
    latestState.update(new ArrayList<>(latest.values()));
    logLengthState.update(List.of(logLength));
  }

  @Override
  public void endInput() throws Exception {
    flushLog();
    Path dir = Path.of(runDir);
    LedgerFiles.writeCsv(dir, latest.values(), ZoneId.of(zone));
    RunSummary.of(latest.values()).write(dir);
  }

  @Override
  public void close() throws Exception {
    if (log != null) {
      flushLog();
      log.close();
    }
    super.close();
  }
}
