package io.logbench.schedule;

import java.io.Serializable;

/**
 * The expected number of lines with timestamps in the half-open window {@code [startMillis,
 * endMillis)}, epoch milliseconds.
 */
public record WindowCount(long startMillis, long endMillis, long count) implements Serializable {}
