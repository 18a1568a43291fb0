package io.logbench.cli;

/** A command line that cannot be run: its message says what is wrong. */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
