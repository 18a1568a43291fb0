package io.logbench.sink;

import java.io.Serializable;

/**
 * One entry of a run file's {@code backends:} list: the backend's own checked block and how
 * batches are delivered to it.
 */
public record BackendConfig(BackendSpec spec, DeliverySettings delivery) implements Serializable {

  public String name() {
    return spec.name();
  }
}
