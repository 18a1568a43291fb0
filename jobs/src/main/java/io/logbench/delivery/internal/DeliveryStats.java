package io.logbench.delivery.internal;

import io.logbench.sink.LatencyHistogram;
import io.logbench.sink.SendResult;
import io.logbench.sink.ThresholdBreach;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;

/**
 * What one task's deliveries to one backend added up to: line counters by fate, request counts
 * and latency histograms. Written only from the delivery thread; metric reporters read it.
 */
public final class DeliveryStats {

  /** Failure classes that get their own {@code linesFailed_<class>} counter. */
  public static final List<String> FAILURE_CLASSES =
      List.of("4xx", "429", "5xx", "io", "timeout", "aborted", "other");

  public final Counter linesSent = new ThreadSafeSimpleCounter();
  public final Counter linesAcked = new ThreadSafeSimpleCounter();
  public final Counter linesRetried = new ThreadSafeSimpleCounter();
  public final Counter requests = new ThreadSafeSimpleCounter();
  public final Counter failedRequests = new ThreadSafeSimpleCounter();
  private final Map<String, Counter> linesFailed = new LinkedHashMap<>();
  private final Map<String, Counter> requestsResent = new LinkedHashMap<>();

  /** Causes of a resend, each with its {@code requestsResent_<cause>} counter. */
  public static final List<String> RESEND_CAUSES = List.of("429", "5xx", "io", "timeout", "partial", "4xx", "other");

  /** Microseconds from a batch's scheduled time to its final answer. */
  private final LatencyHistogram latencyFromSchedule = new LatencyHistogram();
  /** Microseconds from a request's send to its answer, every request. */
  private final LatencyHistogram serviceTime = new LatencyHistogram();

  private volatile int inFlightRequests;
  private volatile ThresholdBreach breach;

  public DeliveryStats() {
    for (String c : FAILURE_CLASSES) {
      linesFailed.put(c, new ThreadSafeSimpleCounter());
    }
    for (String c : RESEND_CAUSES) {
      requestsResent.put(c, new ThreadSafeSimpleCounter());
    }
  }

  /** The counter of lines failed with {@code reason}'s class. */
  public Counter linesFailed(String failureClass) {
    return linesFailed.get(failureClass);
  }

  public Map<String, Counter> linesFailedByClass() {
    return linesFailed;
  }

  /** Requests resent, by the cause of the answer before them (one of {@link #RESEND_CAUSES}). */
  public Map<String, Counter> requestsResentByCause() {
    return requestsResent;
  }

  /** The class of a rejection reason: {@code "429"}, {@code "4xx"}, {@code "5xx"}, ... */
  public static String failureClass(String reason) {
    if (reason.startsWith("429")) {
      return "429";
    }
    if (reason.length() >= 3 && Character.isDigit(reason.charAt(0)) && Character.isDigit(reason.charAt(1))
        && Character.isDigit(reason.charAt(2))) {
      return reason.charAt(0) == '4' ? "4xx" : reason.charAt(0) == '5' ? "5xx" : "other";
    }
    return switch (reason) {
      case "io", "timeout", "aborted" -> reason;
      case SendResult.ACK_TIMEOUT -> "timeout";
      default -> "other";
    };
  }

  void recordLatency(long latencyNanos) {
    synchronized (latencyFromSchedule) {
      latencyFromSchedule.record(latencyNanos / 1_000);
    }
  }

  void recordService(long serviceNanos) {
    synchronized (serviceTime) {
      serviceTime.record(serviceNanos / 1_000);
    }
  }

  /** A copy of the latency-from-schedule histogram (microseconds). */
  public LatencyHistogram latencyFromSchedule() {
    synchronized (latencyFromSchedule) {
      return latencyFromSchedule.copy();
    }
  }

  /** A copy of the request duration histogram (microseconds). */
  public LatencyHistogram serviceTime() {
    synchronized (serviceTime) {
      return serviceTime.copy();
    }
  }

  /** The 95th percentile of request durations so far, microseconds. */
  long serviceP95Micros() {
    synchronized (serviceTime) {
      return serviceTime.percentile(95);
    }
  }

  public int inFlightRequests() {
    return inFlightRequests;
  }

  void addInFlight(int delta) {
    inFlightRequests += delta;
  }

  /** The threshold this task saw crossed, or null. */
  public ThresholdBreach breach() {
    return breach;
  }

  void breach(ThresholdBreach b) {
    breach = b;
  }
}
