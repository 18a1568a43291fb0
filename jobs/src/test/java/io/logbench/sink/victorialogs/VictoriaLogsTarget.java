package io.logbench.sink.victorialogs;

import java.util.OptionalLong;

/**
 * What {@link VictoriaLogsContract} runs against: the real VictoriaLogs ({@link
 * VictoriaLogsServer}) or the {@link VictoriaLogsEmulator}. Each endpoint is a tenant (AccountID)
 * no other test uses.
 */
interface VictoriaLogsTarget extends AutoCloseable {

  /** What the target is, for messages. */
  String describe();

  /** Where a test inserts and counts, and as which tenant. */
  record Endpoint(String url, String accountId) {}

  /**
   * A fresh tenant of a server that keeps every line ({@code -retentionPeriod=100y}), or, with
   * {@code defaultRetention}, of one with VictoriaLogs' default retention (7 days).
   */
  Endpoint endpoint(boolean defaultRetention);

  /** Makes every row inserted so far searchable (the real server's {@code /internal/force_flush}). */
  void settle(Endpoint at);

  /** The {@code /metrics} page of the server behind {@code at}. */
  String metrics(Endpoint at);

  /** The bytes of the data files of the server behind {@code at}, when the target has files. */
  OptionalLong dataFileBytes(Endpoint at);

  @Override
  void close();
}
