package io.logbench.sink.loki;

import java.util.OptionalLong;

/**
 * What {@link LokiContract} runs against: the real Loki ({@link LokiServer}) or the {@link
 * LokiEmulator}. Each endpoint is a tenant no other test uses, with the limits asked for.
 */
interface LokiTarget {

  /** What the target is, for messages: {@code Loki 3.4.6 at ...} or {@code LokiEmulator}. */
  String describe();

  /** Where a test pushes and counts, and as which tenant. */
  record Endpoint(String url, String tenant) {}

  /** A fresh tenant with {@code limits}; {@code purpose} names it. */
  Endpoint endpoint(LokiServer.Limits limits, String purpose);

  /** The {@code /metrics} page of the target. */
  String metrics();

  /** The bytes of {@code tenant}'s chunk files in the target's store, when the target has files. */
  OptionalLong chunkFileBytes(String tenant);
}
