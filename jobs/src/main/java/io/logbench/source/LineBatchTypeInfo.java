package io.logbench.source;

import io.logbench.dataset.LineBatch;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information for {@link LineBatch}, so Flink uses {@link LineBatchSerializer}, not Kryo. */
public final class LineBatchTypeInfo extends OneClassTypeInfo<LineBatch> {

  private static final long serialVersionUID = 1L;

  public static final LineBatchTypeInfo INSTANCE = new LineBatchTypeInfo();

  private LineBatchTypeInfo() {
    super(LineBatch.class);
  }

  @Override
  public TypeSerializer<LineBatch> createSerializer(SerializerConfig config) {
    return LineBatchSerializer.INSTANCE;
  }
}
