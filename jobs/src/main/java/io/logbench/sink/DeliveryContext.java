package io.logbench.sink;

import io.logbench.dataset.LineBatch;
import io.logbench.schedule.Schedule;
import java.time.ZoneId;
import java.util.Objects;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * What a backend's delivery wiring ({@link BackendSpec#deliver}) needs of the run, while the job
 * is built: how to deliver, the run's lines, its window grid (outcomes count lines per window),
 * its schedule (for the thresholds' delay), its zone (day files), and the job's request delivery
 * (asynchronous sends through a {@link BatchSender} under the delivery mode) that most backends
 * use as it is.
 *
 * @param delivery the backend's delivery settings
 * @param run the run's id, streams, dataset and first index
 * @param grid the run's windows
 * @param schedule the run's schedule, or null to time the thresholds from the first batch
 * @param zone the run's zone
 * @param requests the job's delivery of a backend's batches as requests through its sender
 * @param skipped the batches the run never sends (a canary's gaps), which nothing may wait for
 */
public record DeliveryContext(DeliverySettings delivery, RunContext run, WindowGrid grid, Schedule schedule,
    ZoneId zone, RequestDelivery requests, io.logbench.schedule.SkippedBatches skipped) {

  /** A context of a run that sends every batch. */
  public DeliveryContext(DeliverySettings delivery, RunContext run, WindowGrid grid, Schedule schedule, ZoneId zone,
      RequestDelivery requests) {
    this(delivery, run, grid, schedule, zone, requests, io.logbench.schedule.SkippedBatches.none());
  }

  /** Delivers a backend's batches as requests through the sender it opens. */
  @FunctionalInterface
  public interface RequestDelivery {
    DataStream<BatchOutcome> apply(BackendSpec spec, DeliveryContext context, DataStream<LineBatch> batches);
  }

  public DeliveryContext {
    Objects.requireNonNull(requests, "requests");
    Objects.requireNonNull(delivery, "delivery");
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(grid, "grid");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(skipped, "skipped");
  }
}
