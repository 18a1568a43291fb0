package io.logbench.sink.emulator;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Failures an emulator is told to inject into its next requests, in order: fail with a status,
 * answer late, never answer, answer garbage, drop the connection, or accept a push and then lose
 * some of its lines.
 */
public final class HttpFaults {

  /** What to do to one request. */
  public enum Kind {
    FAIL,
    DELAY,
    HANG,
    GARBAGE,
    RESET,
    LOSE
  }

  /**
   * One injected fault.
   *
   * @param kind what to do
   * @param status status to answer (FAIL, GARBAGE)
   * @param body body to answer (FAIL), may be empty
   * @param delay how long to wait before handling normally (DELAY)
   * @param lines lines to lose after storing (LOSE)
   */
  public record Fault(Kind kind, int status, String body, Duration delay, int lines) {}

  private final Deque<Fault> next = new ArrayDeque<>();

  /** The next {@code requests} pushes answer {@code status} with {@code body}. */
  public synchronized HttpFaults failNext(int requests, int status, String body) {
    return add(requests, new Fault(Kind.FAIL, status, body == null ? "" : body, Duration.ZERO, 0));
  }

  /** The next {@code requests} pushes are handled normally after {@code delay}. */
  public synchronized HttpFaults delayNext(int requests, Duration delay) {
    return add(requests, new Fault(Kind.DELAY, 0, "", delay, 0));
  }

  /** The next {@code requests} pushes are never answered (until the emulator stops). */
  public synchronized HttpFaults hangNext(int requests) {
    return add(requests, new Fault(Kind.HANG, 0, "", Duration.ZERO, 0));
  }

  /** The next {@code requests} pushes answer {@code status} with bytes that mean nothing. */
  public synchronized HttpFaults garbageNext(int requests, int status) {
    return add(requests, new Fault(Kind.GARBAGE, status, "", Duration.ZERO, 0));
  }

  /** The next {@code requests} pushes get their connection closed without an answer. */
  public synchronized HttpFaults resetNext(int requests) {
    return add(requests, new Fault(Kind.RESET, 0, "", Duration.ZERO, 0));
  }

  /** The next push is stored and answered as a success, then {@code lines} of its lines vanish. */
  public synchronized HttpFaults loseFromNext(int lines) {
    return add(1, new Fault(Kind.LOSE, 0, "", Duration.ZERO, lines));
  }

  private HttpFaults add(int requests, Fault f) {
    for (int i = 0; i < requests; i++) {
      next.addLast(f);
    }
    return this;
  }

  /** The fault for the request being handled, or null. */
  public synchronized Fault take() {
    return next.pollFirst();
  }

  public synchronized void clear() {
    next.clear();
  }

  /** Bytes that are neither JSON nor text. */
  public static byte[] garbage() {
    return new byte[] {(byte) 0xff, 0x00, '<', 'h', 't', 'm', 'l', (byte) 0xfe, '{', '{', 0x01};
  }
}
