package io.logbench.source;

import io.logbench.dataset.LineBatch;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information for {@link LineBatch}, so Flink uses {@link LineBatchSerializer}, not Kryo. */
public final class LineBatchTypeInfo extends TypeInformation<LineBatch> {

  private static final long serialVersionUID = 1L;

  public static final LineBatchTypeInfo INSTANCE = new LineBatchTypeInfo();

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<LineBatch> getTypeClass() {
    return LineBatch.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<LineBatch> createSerializer(SerializerConfig config) {
    return LineBatchSerializer.INSTANCE;
  }

  @Override
  public String toString() {
    return "LineBatch";
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof LineBatchTypeInfo;
  }

  @Override
  public int hashCode() {
    return LineBatchTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj instanceof LineBatchTypeInfo;
  }
}
