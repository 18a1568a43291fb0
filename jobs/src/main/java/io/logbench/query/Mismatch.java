package io.logbench.query;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * One cell of a backend's answer that is not the exact answer: in bucket {@code bucketStartMillis}
 * the backend counted {@code got} lines whose {@code key} is {@code value}, where the run has
 * {@code expected}.
 */
public record Mismatch(
    String backend, String search, long bucketStartMillis, long bucketMillis, String key, String value,
    long expected, long got) {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  /** A full sentence naming the backend, the search, the bucket, the key, and both counts. */
  public String sentence(ZoneId zone) {
    return "Backend " + backend + " answered " + got + " for " + key + "=" + value + " in the bucket starting "
        + TIME.format(Instant.ofEpochMilli(bucketStartMillis).atZone(zone)) + " of search " + search
        + ", where the run has exactly " + expected + ".";
  }
}
