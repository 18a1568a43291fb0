package io.logbench.dataset;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/** The streams a dataset's lines belong to, each a set of labels, numbered from 0. */
public interface StreamCatalog extends Serializable {

  /** Number of distinct streams. */
  int size();

  /** Labels of stream {@code id}, in a stable order. */
  Map<String, String> labels(int id);

  /** Label names, in the order {@link #labels} gives them. */
  List<String> labelNames();
}
