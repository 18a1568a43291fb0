package io.logbench.sink.loki;

import io.logbench.count.internal.CountQueries;
import io.logbench.http.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * Makes a Loki write out what its ingesters hold in memory before its stored size is read:
 * {@code POST /flush}, then {@code /metrics} until the flush has finished.
 *
 * <p>Loki counts a chunk in {@code loki_ingester_chunk_stored_bytes_total} only once it is flushed
 * to the store, and right after a run almost every chunk is still in memory (observed on 3.4.6:
 * the quickstart hour showed 1.2 B/line before a flush and 12.9 after). {@code POST /flush}
 * answers 204 once it has queued a flush of every stream ({@code loki_ingester_flush_queue_length}
 * counts them); each flush then writes its chunks and counts them in {@code
 * loki_ingester_chunks_stored_total} and their bytes in the stored-bytes metric. Depending on the
 * version, {@code loki_ingester_chunks_flushed_total} counts a chunk when a flush takes it (ahead
 * of the store) or once it is stored. So the flush is taken as done when the queues are empty,
 * every chunk taken is stored, and none of these figures moved for {@link #SETTLED}: a flush in
 * progress (off the queue, writing) moves the stored figures.
 */
final class LokiFlush {

  static final String QUEUE = "loki_ingester_flush_queue_length";
  static final String TAKEN = "loki_ingester_chunks_flushed_total";
  static final String STORED = "loki_ingester_chunks_stored_total";
  static final String MEMORY_CHUNKS = "loki_ingester_memory_chunks";

  /** How often the metrics are read while a flush runs. */
  static final Duration POLL = Duration.ofMillis(250);
  /** How long the figures must stay still, queues empty, for the flush to count as done. */
  static final Duration SETTLED = Duration.ofSeconds(1);

  /**
   * What the flush came to.
   *
   * @param done whether every chunk taken was stored before the timeout
   * @param metrics the last {@code /metrics} page read
   * @param pending flush operations queued plus chunks taken but not stored, at the last poll
   */
  record Outcome(boolean done, String metrics, long pending) {}

  private LokiFlush() {}

  /**
   * Flushes and waits up to {@code timeout} for the flush to finish.
   *
   * @throws IOException when Loki does not take the flush (no answer, or not a 2xx: a gateway in
   *     front of Loki that does not route {@code /flush}, for example)
   */
  static Outcome run(CountQueries http, URI base, Duration timeout) throws IOException {
    CountQueries.Answer a = http.send(http.request(URI.create(base + "/flush"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), "the flush of its ingesters (POST /flush)");
    if (a.status() < 200 || a.status() >= 300) {
      throw new IOException(http.backend() + " answered " + a.status() + " to POST /flush: "
          + a.shortText(200) + ".");
    }
    io.logbench.count.internal.StillPoll.Result<String> r = io.logbench.count.internal.StillPoll.await(
        () -> new String(http.get(URI.create(base + "/metrics"), "the metrics page"),
            java.nio.charset.StandardCharsets.UTF_8),
        page -> pending(page) != 0 ? null : "0/" + PrometheusText.sum(page, STORED).orElse(0) + "/"
            + PrometheusText.sum(page, LokiBackend.CHUNK_BYTES_METRIC).orElse(0),
        SETTLED, POLL, timeout, http.backend() + "'s flush");
    return new Outcome(r.still(), r.last(), r.still() ? 0 : pending(r.last()));
  }

  /** Flush operations queued plus chunks taken but not yet stored, from a {@code /metrics} page. */
  static long pending(String page) {
    long queued = (long) PrometheusText.sum(page, QUEUE).orElse(0);
    long taken = (long) PrometheusText.sum(page, TAKEN).orElse(0);
    long stored = (long) PrometheusText.sum(page, STORED).orElse(0);
    return queued + Math.max(0, taken - stored);
  }
}
