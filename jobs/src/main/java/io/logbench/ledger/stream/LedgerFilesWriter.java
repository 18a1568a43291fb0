package io.logbench.ledger.stream;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import io.logbench.rundir.RunDir;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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
 * Writes the ledger's files (parallelism 1): keeps the latest row of every key, logs each changed
 * row when asked to, and when the input ends writes {@value LedgerFiles#CSV} and {@value
 * RunSummary#FILE}. The latest rows and the log's position are checkpointed, and a restore cuts
 * the log back to that position, so it holds no row twice:
 *
 * <ul>
 *   <li>in a local run directory the log is {@value LedgerFiles#JSONL}, appended to; its position
 *       is its length, and a restore truncates it;
 *   <li>in any other ({@link RunDir}: an object store, HDFS) nothing can be appended or truncated,
 *       so the log is {@value LedgerFiles#SEGMENTS}{@code /<n>.jsonl}, one segment written once per
 *       flush (each checkpoint, and every 64 KiB of rows between); its position is the next
 *       segment's number, and a restore deletes the segments from that number on.
 * </ul>
 */
public final class LedgerFilesWriter extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<LedgerEntry, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  /** Rows held before a flush between checkpoints. */
  private static final int FLUSH_CHARS = 1 << 16;

  private final RunDir runDir;
  private final String zone;
  private final boolean upsertLog;

  private transient TreeMap<LedgerEntry.Key, LedgerEntry> latest;
  private transient ListState<LedgerEntry> latestState;
  private transient ListState<Long> logLengthState;
  /** The local log, or null when the log is segments (or off). */
  private transient FileChannel log;
  /** The local log's length, or the next segment's number. */
  private transient long logLength;
  private transient StringBuilder pendingLog;
  private transient LedgerFiles.JsonRows logRows;

  public LedgerFilesWriter(String runDir, String zone, boolean upsertLog) {
    this(RunDir.of(runDir), zone, upsertLog);
  }

  public LedgerFilesWriter(RunDir runDir, String zone, boolean upsertLog) {
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
    // the same state holds the local log's length or the next segment's number: a run directory's
    // kind does not change between a checkpoint and its restore
    logLengthState =
        context.getOperatorStateStore().getListState(new ListStateDescriptor<>("ledger-log-length", Types.LONG));
    latest = new TreeMap<>();
    pendingLog = new StringBuilder();
    logRows = new LedgerFiles.JsonRows(ZoneId.of(zone), pendingLog);
    logLength = 0;
    runDir.createDirectories();
    if (context.isRestored()) {
      for (LedgerEntry e : latestState.get()) {
        latest.put(e.key(), e);
      }
      for (Long n : logLengthState.get()) {
        logLength = n;
      }
    }
    if (!upsertLog) {
      return;
    }
    Path dir = runDir.local().orElse(null);
    if (dir != null) {
      log = FileChannel.open(dir.resolve(LedgerFiles.JSONL), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      // rows appended after the checkpoint come again from the restored upstream
      log.truncate(logLength);
    } else {
      // segments written after the checkpoint (or by an earlier run, on a fresh start) hold rows
      // that come again; deleting them frees their numbers for this attempt's create-once writes
      for (String segment : LedgerFiles.segments(runDir)) {
        if (LedgerFiles.segmentNumber(segment) >= logLength) {
          runDir.delete(LedgerFiles.SEGMENTS + "/" + segment);
        }
      }
    }
  }

  @Override
  public void processElement(StreamRecord<LedgerEntry> element) throws Exception {
    LedgerEntry e = element.getValue();
    latest.put(e.key(), e);
    if (upsertLog) {
      logRows.append(e);
      if (pendingLog.length() > FLUSH_CHARS) {
        flushLog();
      }
    }
  }

  private void flushLog() throws Exception {
    if (!upsertLog || pendingLog.length() == 0) {
      return;
    }
    byte[] bytes = pendingLog.toString().getBytes(StandardCharsets.UTF_8);
    if (log != null) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        logLength += log.write(buffer, logLength);
      }
    } else {
      runDir.create(LedgerFiles.SEGMENTS + "/" + LedgerFiles.segmentName(logLength), bytes);
      logLength++;
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
    LedgerFiles.writeCsv(runDir, latest.values(), ZoneId.of(zone));
    RunSummary.of(latest.values()).write(runDir);
  }

  @Override
  public void close() throws Exception {
    if (latest != null && upsertLog) {
      flushLog();
    }
    if (log != null) {
      log.close();
    }
    super.close();
  }
}
