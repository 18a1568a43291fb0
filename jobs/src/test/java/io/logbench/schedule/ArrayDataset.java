package io.logbench.schedule;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.StreamCatalog;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/** A tiny test dataset whose lines carry the given timestamps and nothing else. */
final class ArrayDataset implements Dataset {

  private static final long serialVersionUID = 1L;

  private final long[] millis;

  ArrayDataset(long... millis) {
    this.millis = millis.clone();
    for (int i = 1; i < millis.length; i++) {
      if (millis[i] < millis[i - 1]) {
        throw new IllegalArgumentException("timestamps must be non-decreasing");
      }
    }
  }

  /** Line {@code i} at {@code f(i)} for {@code i < size}. */
  static ArrayDataset of(int size, LongUnaryOperator f) {
    long[] millis = new long[size];
    for (int i = 0; i < size; i++) {
      millis[i] = f.applyAsLong(i);
    }
    return new ArrayDataset(millis);
  }

  @Override
  public String name() {
    return "array";
  }

  @Override
  public long size() {
    return millis.length;
  }

  @Override
  public long timestampMillis(long index) {
    return millis[Math.toIntExact(index)];
  }

  @Override
  public long countBefore(long epochMillis) {
    int lo = 0;
    int hi = millis.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (millis[mid] < epochMillis) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public long endMillis() {
    return millis.length == 0 ? 0 : millis[millis.length - 1] + 1;
  }

  @Override
  public StreamCatalog streams() {
    return new StreamCatalog() {
      @Override
      public int size() {
        return 1;
      }

      @Override
      public Map<String, String> labels(int id) {
        return Map.of();
      }

      @Override
      public List<String> labelNames() {
        return List.of();
      }
    };
  }

  @Override
  public LineCursor cursor(long fromIndex) {
    throw new UnsupportedOperationException("ArrayDataset has timestamps only");
  }

  @Override
  public String toString() {
    return "ArrayDataset" + Arrays.toString(millis);
  }
}
