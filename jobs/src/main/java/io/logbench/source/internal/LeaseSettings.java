package io.logbench.source.internal;

import io.logbench.replay.ReplayFiles;
import java.io.Serializable;

/**
 * Where a dataset source keeps its stripes' leases and writes its restore records.
 *
 * @param files the run directory's replay files
 * @param backend the backend the source feeds (leases and records are per backend)
 * @param leaseBatches batches of a stripe each lease extension covers, at least 1
 */
public record LeaseSettings(ReplayFiles files, String backend, int leaseBatches) implements Serializable {

  private static final long serialVersionUID = 1L;
}
