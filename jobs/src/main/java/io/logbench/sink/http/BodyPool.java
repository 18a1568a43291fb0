package io.logbench.sink.http;

import io.logbench.http.HttpTransport;
import io.logbench.sink.internal.JsonBytes;
import java.util.ArrayDeque;

/**
 * A sender's reusable request bodies: the encoder writes a batch into a body taken here, the
 * transport copies that array into the request's buffer and releases the body, which comes back
 * for a later batch. So a steady run allocates no body arrays, and a body is never changed while the
 * transport still reads it. Taken on the delivery thread, given back on it or on an I/O thread.
 */
public final class BodyPool {

  /** Bodies kept at most; more than this many requests in flight allocate and drop the extra ones. */
  private static final int KEPT = 64;

  private final ArrayDeque<Body> free = new ArrayDeque<>();
  private final int initialCapacity;

  /** Bodies that start at {@code initialCapacity} bytes and grow as batches need. */
  public BodyPool(int initialCapacity) {
    this.initialCapacity = initialCapacity;
  }

  /** An empty body to encode into. */
  public Body take() {
    Body b;
    synchronized (free) {
      b = free.poll();
    }
    if (b == null) {
      b = new Body(new JsonBytes(initialCapacity));
    }
    b.bytes.clear();
    return b;
  }

  private void giveBack(Body b) {
    synchronized (free) {
      if (free.size() < KEPT) {
        free.push(b);
      }
    }
  }

  /** One body: the encoder's buffer, and the request body the transport writes from it. */
  public final class Body implements HttpTransport.RequestBody {
    private final JsonBytes bytes;

    private Body(JsonBytes bytes) {
      this.bytes = bytes;
    }

    /** The buffer to encode into. */
    public JsonBytes bytes() {
      return bytes;
    }

    @Override
    public byte[] array() {
      return bytes.array();
    }

    @Override
    public int length() {
      return bytes.size();
    }

    @Override
    public void release() {
      giveBack(this);
    }
  }
}
