package io.logbench.sink;

import java.io.Serializable;

/**
 * One entry of a run file's {@code backends:} list: the backend's own checked block and the keys
 * every block shares (name, delivery, query timeout).
 */
public record BackendConfig(BackendSpec spec, CommonSettings common) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** A backend with every common default (for tests and tools). */
  public static BackendConfig of(BackendSpec spec) {
    return new BackendConfig(spec, CommonSettings.of(spec.kind(), spec.name()));
  }

  /** The same spec delivered with {@code delivery}. */
  public static BackendConfig of(BackendSpec spec, DeliverySettings delivery) {
    return new BackendConfig(spec, CommonSettings.of(spec.kind(), spec.name()).withDelivery(delivery));
  }

  public String name() {
    return spec.name();
  }

  public DeliverySettings delivery() {
    return common.delivery();
  }
}
