package io.logbench.cli;

import java.util.EnumSet;
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
 * Drops the warning, with its stack trace, that Flink's checkpoint coordinator writes for a
 * checkpoint a task declined because it was not running yet or was already closing: every bounded
 * run has one or two (a checkpoint triggered while a backend's tasks start, or after a source
 * finished and its task closes), the next checkpoint goes on, and the user can do nothing about it.
 * Every other checkpoint failure still shows: an expired checkpoint, a write that failed, a task's
 * own error. The log configuration cannot say this (its regex filters see the message, "Failed to
 * trigger or complete checkpoint N", not the exception that says why), so the filter is added to
 * the logger's configuration in code, once, before a command runs.
 */
final class QuietCheckpoints extends AbstractFilter {

  /** The logger whose warning this filters. */
  static final String LOGGER = "org.apache.flink.runtime.checkpoint.CheckpointFailureManager";

  /** The reasons a task declines a checkpoint at its start and end. */
  static final Set<CheckpointFailureReason> ROUTINE =
      EnumSet.of(CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_NOT_READY,
          CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING);

  private QuietCheckpoints() {
    super(Filter.Result.DENY, Filter.Result.NEUTRAL);
  }

  /**
   * Adds the filter to the log configuration in force (log4j's, as the jar's log4j2.properties
   * sets it up) when the logger has a configuration of its own there; does nothing otherwise (a
   * user's own log configuration, or another logging back end).
   */
  static void install() {
    if (LogManager.getContext(false) instanceof LoggerContext context) {
      install(context);
    }
  }

  /** {@link #install()} into {@code context}; whether the logger had a configuration to add it to. */
  static boolean install(LoggerContext context) {
    LoggerConfig config = context.getConfiguration().getLoggerConfig(LOGGER);
    if (!config.getName().equals(LOGGER)) {
      return false;
    }
    config.addFilter(new QuietCheckpoints());
    context.updateLoggers();
    return true;
  }

  @Override
  public Filter.Result filter(LogEvent event) {
    return routine(event.getThrown()) ? onMatch : onMismatch;
  }

  /** Whether {@code thrown}, or an exception it was caused by, declines a checkpoint for a routine reason. */
  static boolean routine(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CheckpointException e && ROUTINE.contains(e.getCheckpointFailureReason())) {
        return true;
      }
    }
    return false;
  }
}
