package io.logbench.run;

/**
 * A run that cannot start as asked: its run directory does not fit the run file, or holds nothing
 * to continue from. Nothing ran; the command line exits 2, as for a wrong command line, with the
 * message, a full sentence that names the directory and what it expected.
 */
public final class RunRefusedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public RunRefusedException(String message) {
    super(message);
  }
}
