package io.logbench.plan;

import io.logbench.sink.RunContext;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * Run ids: {@code <run name>-<UTC start as yyyyMMdd-HHmmss>-<4 hex digits>}, e.g. {@code
 * quickstart-20261130-121314-3f2a}. Every line of a run carries its id where the backend allows a
 * field, label or header, and counts filter by it, so two runs into one index or label set never
 * mix. Ids use only letters, digits, '.', '_' and '-', which every backend takes as a label value,
 * a term, a header and a file name.
 */
public final class RunIds {

  /** What a run id may hold. */
  public static final Pattern VALID = RunContext.RUN_ID;

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private RunIds() {}

  /** A new id for a run of {@code name} starting at {@code startMillis}. */
  public static String create(String name, long startMillis, RandomGenerator random) {
    String base = name.replaceAll("[^A-Za-z0-9._-]+", "-");
    if (base.length() > 64) {
      base = base.substring(0, 64);
    }
    if (base.isEmpty()) {
      base = "run";
    }
    return base + "-" + STAMP.format(Instant.ofEpochMilli(startMillis)) + "-"
        + String.format(Locale.ROOT, "%04x", random.nextInt(0x10000));
  }

  /** {@code id} when it is a valid run id; else an error naming it. */
  public static String check(String id) {
    if (id == null || !VALID.matcher(id).matches()) {
      throw new IllegalArgumentException("A run id is 1 to 128 letters, digits, '.', '_' or '-', not \"" + id + "\".");
    }
    return id;
  }
}
