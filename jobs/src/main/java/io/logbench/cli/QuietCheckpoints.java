package io.logbench.cli;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.filter.AbstractFilter;

/**
 * Drops the warnings, with their stack traces, that Flink's job master writes for a checkpoint a
 * task declined because it was not running yet or was already closing, or that reached a task
 * that had just finished: every bounded run has one or more (a checkpoint triggered while a
 * backend's tasks start, or after one of a backend's sources finished while the other still runs),
 * the next checkpoint goes on, and the user can do nothing about it. Every other checkpoint failure
 * still shows: an expired checkpoint, a write that failed, a task's own error. The log
 * configuration cannot say this (its regex filters see the message, "Failed to trigger or complete
 * checkpoint N" or "Error while processing AcknowledgeCheckpoint message", not the exception that
 * says why), so the filter is added to those loggers' configurations in code, once, before a
 * command runs.
 */
final class QuietCheckpoints extends AbstractFilter {

  /** The loggers whose warnings this filters (each named in the jar's log4j2.properties). */
  static final List<String> LOGGERS = List.of("org.apache.flink.runtime.checkpoint.CheckpointFailureManager",
      "org.apache.flink.runtime.jobmaster.JobMaster");

  /** What Flink's task executor says of a checkpoint for a task that finished and is gone. */
  static final String GONE = "received a checkpoint request for unknown task";

  /** The reasons a task declines a checkpoint at its start and end. */
  static final Set<CheckpointFailureReason> ROUTINE =
      EnumSet.of(CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_NOT_READY,
          CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING);

  private QuietCheckpoints() {
    super(Filter.Result.DENY, Filter.Result.NEUTRAL);
  }

  /**
   * Adds the filter to the log configuration in force (log4j's, as the jar's log4j2.properties
   * sets it up), to each of the loggers that has a configuration of its own there; does nothing
   * otherwise (a user's own log configuration, or another logging back end).
   */
  static void install() {
    if (LogManager.getContext(false) instanceof LoggerContext context) {
      install(context);
    }
  }

  /** {@link #install()} into {@code context}; how many of the loggers had a configuration to add it to. */
  static int install(LoggerContext context) {
    int added = 0;
    for (String logger : LOGGERS) {
      LoggerConfig config = context.getConfiguration().getLoggerConfig(logger);
      if (config.getName().equals(logger)) {
        config.addFilter(new QuietCheckpoints());
        added++;
      }
    }
    if (added > 0) {
      context.updateLoggers();
    }
    return added;
  }

  @Override
  public Filter.Result filter(LogEvent event) {
    return routine(event.getThrown()) ? onMatch : onMismatch;
  }

  /**
   * Whether {@code thrown}, or an exception it was caused by, declines a checkpoint for a routine
   * reason or is the failure of a checkpoint request for a task that is gone.
   */
  static boolean routine(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CheckpointException e && (ROUTINE.contains(e.getCheckpointFailureReason())
          || e.getCheckpointFailureReason() == CheckpointFailureReason.TASK_CHECKPOINT_FAILURE
              && e.getMessage() != null && e.getMessage().contains(GONE))) {
        return true;
      }
    }
    return false;
  }
}
