package io.logbench.cli;

import io.logbench.config.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A command's arguments: positionals, {@code --flag} switches and {@code --option VALUE} pairs. */
final class Args {

  private final String command;
  private final List<String> positionals = new ArrayList<>();
  private final Map<String, String> options = new HashMap<>();

  private Args(String command) {
    this.command = command;
  }

  /** Parses {@code argv} after the command name; {@code flags} take no value. */
  static Args parse(String command, String[] argv, Set<String> flags, Set<String> valued) {
    Args a = new Args(command);
    for (int i = 0; i < argv.length; i++) {
      String s = argv[i];
      if (s.startsWith("--")) {
        String name = s;
        String value = null;
        int eq = s.indexOf('=');
        if (eq > 0) {
          name = s.substring(0, eq);
          value = s.substring(eq + 1);
        }
        if (flags.contains(name) && value == null) {
          a.options.put(name, "true");
        } else if (valued.contains(name)) {
          if (value == null) {
            if (i + 1 >= argv.length) {
              throw new UsageException(command + ": " + name + " needs a value.");
            }
            value = argv[++i];
          }
          a.options.put(name, value);
        } else {
          List<String> known = new ArrayList<>(flags);
          known.addAll(valued);
          known.sort(null);
          throw new UsageException(command + ": unknown option " + name + "; expected one of "
              + String.join(", ", known) + ".");
        }
      } else {
        a.positionals.add(s);
      }
    }
    return a;
  }

  String positional(int i, String what) {
    if (positionals.size() <= i) {
      throw new UsageException(command + ": missing " + what + ".");
    }
    return positionals.get(i);
  }

  void expectPositionals(int n) {
    if (positionals.size() > n) {
      throw new UsageException(command + ": unexpected argument " + positionals.get(n) + ".");
    }
  }

  boolean flag(String name) {
    return options.containsKey(name);
  }

  String option(String name) {
    return options.get(name);
  }

  Duration duration(String name) {
    String v = options.get(name);
    if (v == null) {
      return null;
    }
    Duration d = Durations.parse(v);
    if (d == null || d.isZero()) {
      throw new UsageException(command + ": " + name + " " + v
          + " is not valid; expected a duration such as 1m, 5m, 1h or 1d.");
    }
    return d;
  }

  /** As {@link #duration}, but zero is allowed (e.g. {@code --settle 0s}). */
  Duration durationOrZero(String name) {
    String v = options.get(name);
    if (v == null) {
      return null;
    }
    Duration d = Durations.parse(v);
    if (d == null) {
      throw new UsageException(command + ": " + name + " " + v
          + " is not valid; expected a duration such as 0s, 30s, 5m or 1h.");
    }
    return d;
  }

  Instant time(String name) {
    String v = options.get(name);
    if (v == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(v).toInstant();
    } catch (DateTimeParseException e) {
      throw new UsageException(command + ": " + name + " " + v
          + " is not valid; expected an ISO-8601 time with an offset, such as 2021-05-01T00:00:00-03:00.");
    }
  }

  int integer(String name, int fallback, int min) {
    String v = options.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(command + ": " + name + " " + v + " is not valid; expected a whole number of at least " + min + ".");
  }
}
