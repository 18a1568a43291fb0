package io.logbench.visibility;

import io.logbench.sink.LatencyHistogram;
import java.io.Serializable;

/**
 * What the visibility polls of one backend found in a run: how many sampled batches became
 * countable and how long after their answer (ack) and their scheduled time, and when the run's
 * last line became countable. Sent from the job to the client as an accumulator.
 *
 * @param backend the backend's name
 * @param sampleEvery one batch in this many was sampled
 * @param sampled batches sampled (acknowledged in full and picked by number)
 * @param visible sampled batches found countable in full
 * @param notVisible sampled batches not countable in full within the timeout
 * @param polls id reads made for the samples
 * @param pollErrors id reads that failed (the sample stayed pending)
 * @param fromAckMicros per visible sample: from its final answer to the poll that found it
 * @param fromScheduleMicros per visible sample: from its scheduled time to the poll that found it
 * @param ackedLines lines acknowledged in the run (what the end-of-run count waits for)
 * @param lastVisibleNanos epoch ns of the answer of the first end-of-run count that found every
 *     acknowledged line; 0 when none did
 * @param lastLineNote why {@code lastVisibleNanos} is 0 (a sentence), else empty
 */
public record VisibilityReport(
    String backend,
    int sampleEvery,
    long sampled,
    long visible,
    long notVisible,
    long polls,
    long pollErrors,
    LatencyHistogram fromAckMicros,
    LatencyHistogram fromScheduleMicros,
    long ackedLines,
    long lastVisibleNanos,
    String lastLineNote)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public VisibilityReport {
    lastLineNote = lastLineNote == null ? "" : lastLineNote;
  }
}
