package io.logbench.http;

import java.util.concurrent.atomic.AtomicInteger;

/** A request body of the first {@code length} bytes of an array, counting its releases. */
final class CountedBody implements HttpTransport.RequestBody {
  final byte[] bytes;
  final int length;
  final AtomicInteger released = new AtomicInteger();

  CountedBody(byte[] bytes, int length) {
    this.bytes = bytes;
    this.length = length;
  }

  @Override
  public byte[] array() {
    return bytes;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public void release() {
    released.incrementAndGet();
  }
}
