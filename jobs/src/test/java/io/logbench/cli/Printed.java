package io.logbench.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What a command line run in the test's JVM ({@link Main#run}) printed, and its exit code.
 *
 * @param code the exit code
 * @param out what it printed on standard output
 * @param err what it printed on standard error
 */
public record Printed(int code, String out, String err) {

  /** Runs {@code logbench args...} in this JVM and keeps what it printed. */
  public static Printed run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Printed(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
