package io.logbench.sink.internal;

import io.logbench.dataset.StreamCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A stream catalog given as a list of label maps, for sender tests. */
public final class FixedStreams implements StreamCatalog {

  private static final long serialVersionUID = 1L;

  private final List<Map<String, String>> streams;

  @SafeVarargs
  public FixedStreams(Map<String, String>... streams) {
    this.streams = List.of(streams);
  }

  @Override
  public int size() {
    return streams.size();
  }

  @Override
  public Map<String, String> labels(int id) {
    return streams.get(id);
  }

  @Override
  public List<String> labelNames() {
    return new ArrayList<>(streams.get(0).keySet());
  }
}
