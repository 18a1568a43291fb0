package io.logbench.dataset.app;

import io.logbench.dataset.StreamCatalog;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The app-json streams: {@code namespace=loadtest} and {@code container=k6-<id>}, as the seed 000
 * k6 script labels its requests.
 */
public final class AppJsonStreams implements StreamCatalog {

  private static final long serialVersionUID = 1L;

  public static final String NAMESPACE = "loadtest";
  public static final String CONTAINER_PREFIX = "k6-";
  private static final List<String> LABEL_NAMES = List.of("namespace", "container");

  private final int size;

  public AppJsonStreams(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("The number of streams must be at least 1, got " + size + ".");
    }
    this.size = size;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Map<String, String> labels(int id) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("namespace", NAMESPACE);
    labels.put("container", container(id));
    return Collections.unmodifiableMap(labels);
  }

  @Override
  public List<String> labelNames() {
    return LABEL_NAMES;
  }

  /** The container label of stream {@code id}, such as {@code k6-7}. */
  public String container(int id) {
    if (id < 0 || id >= size) {
      throw new IllegalArgumentException(
          "Stream id " + id + " is outside [0, " + size + ") of the app-json streams.");
    }
    return CONTAINER_PREFIX + id;
  }
}
