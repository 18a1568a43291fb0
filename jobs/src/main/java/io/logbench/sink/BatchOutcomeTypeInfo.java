package io.logbench.sink;

import io.logbench.source.OneClassTypeInfo;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information for {@link BatchOutcome}, so Flink uses {@link BatchOutcomeSerializer}; the
 * record names it ({@link Factory}), so a stream of outcomes whose type Flink extracts gets it too.
 */
public final class BatchOutcomeTypeInfo extends OneClassTypeInfo<BatchOutcome> {

  private static final long serialVersionUID = 1L;

  public static final BatchOutcomeTypeInfo INSTANCE = new BatchOutcomeTypeInfo();

  private BatchOutcomeTypeInfo() {
    super(BatchOutcome.class);
  }

  @Override
  public TypeSerializer<BatchOutcome> createSerializer(SerializerConfig config) {
    return BatchOutcomeSerializer.INSTANCE;
  }

  /** What Flink's type extraction uses for {@link BatchOutcome}, named by its annotation. */
  public static final class Factory extends TypeInfoFactory<BatchOutcome> {
    @Override
    public TypeInformation<BatchOutcome> createTypeInfo(Type t, Map<String, TypeInformation<?>> generics) {
      return INSTANCE;
    }
  }
}
