package io.logbench.sink.loki;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.http.HttpPushSender;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.loki.internal.LokiJsonEncoder;
import io.logbench.sink.loki.internal.LokiProtoEncoder;
import io.logbench.sink.loki.internal.LokiPushErrors;
import io.logbench.sink.otlp.OtlpPush;
import io.logbench.sink.otlp.internal.OtlpLogsEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import io.logbench.sink.loki.internal.LokiFrontier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.xerial.snappy.Snappy;

/**
 * Loki's push over the HTTP skeleton ({@link HttpPushSender}): batches to {@code
 * /loki/api/v1/push} as JSON or as snappy-compressed protobuf (or, with {@code format: otlp}, to
 * {@code /otlp/v1/logs} through {@link OtlpPush}), each entry with the run's id as
 * structured metadata or each stream with it as a label ({@link LokiBackend#runId}), and the
 * answer classified: 2xx accepted; 400 naming rejected entries (too old, too far behind, too
 * long) partial, since Loki stores the other entries of the push; a 400 refusing structured
 * metadata fatal, with the reason {@code 400 structured metadata disallowed}; other 4xx fatal;
 * 429, 5xx, I/O errors and timeouts retryable.
 *
 * <p>Loki's answer to a push is about its last stream only, as far as the ingester's rejections
 * go ({@link LokiPushErrors}): so each batch goes through the JVM's {@link LokiFrontier} of the
 * push URL and tenant, which sends a stream that may be too far behind its newest line in a push
 * of its own and holds back a push that would make an unanswered one too far behind; the answers
 * of a batch's pushes are merged into one result.
 */
final class LokiSender implements BatchSender {

  /** What Loki answers (400) to structured metadata it does not allow. */
  static final String STRUCTURED_METADATA_DISALLOWED = "includes structured metadata, but this feature is disallowed";

  private final LokiJsonEncoder json;
  private final LokiProtoEncoder proto;
  /** The protobuf before compression; only the delivery thread uses it. */
  private final JsonBytes raw = new JsonBytes(64 * 1024);

  /** Each stream of the run in the frontier, by stream index (keyed by its labels as Loki reads them). */
  private final LokiFrontier.Stream[] streams;
  private final LokiFrontier frontier;
  private HttpPushSender push;

  private LokiSender(LokiBackend spec, RunContext run) {
    List<Map<String, String>> labels = spec.streamLabels(run);
    String metadata = spec.runMetadata(run);
    this.json = spec.format() == LokiBackend.Format.JSON ? new LokiJsonEncoder(labels, metadata) : null;
    this.proto = spec.format() == LokiBackend.Format.PROTOBUF ? new LokiProtoEncoder(labels, metadata) : null;
    this.frontier = LokiFrontier.of(spec.pushUri() + " " + spec.requestHeaders().getOrDefault("X-Scope-OrgID", ""));
    this.streams = new LokiFrontier.Stream[labels.size()];
    for (int i = 0; i < streams.length; i++) {
      streams[i] = frontier.stream(LokiProtoEncoder.prometheusLabels(labels.get(i)));
    }
  }

  /** A sender of {@code run}'s batches to {@code spec}'s Loki. */
  static BatchSender open(LokiBackend spec, RunContext run) {
    if (spec.format() == LokiBackend.Format.OTLP) {
      Map<String, String> attributes = new java.util.LinkedHashMap<>();
      String metadata = spec.runMetadata(run);
      if (metadata != null) {
        attributes.put(RunContext.RUN_FIELD, metadata);
      }
      Map<String, String> resource = new java.util.LinkedHashMap<>(spec.labels());
      resource.remove("service_name");
      resource.put("service.name", spec.otlpService());
      return OtlpPush.open(spec.pushUri(), "backend " + spec.name(), spec.requestHeaders(), spec.timeout(), spec.tls(),
          OtlpLogsEncoder.labels(run.streams()), resource, attributes);
    }
    LokiSender sender = new LokiSender(spec, run);
    sender.push = HttpPushSender.builder(spec.pushUri(), "backend " + spec.name()).headers(spec.requestHeaders())
        .connectTimeout(spec.timeout()).requestTimeout(spec.timeout()).tls(spec.tls())
        .encoder(sender::encode)
        .classifier(LokiSender::classify)
        .build();
    return sender;
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    if (batch.count() == 0) {
      return push.send(batch);
    }
    // the batch's streams in order of first appearance, each with its lines' span; per line an
    // array look-up by stream index (a batch holds a few of the dataset's streams)
    int[] groupOf = new int[streams.length];
    Arrays.fill(groupOf, -1);
    int groups = 0;
    int most = Math.min(streams.length, batch.count());
    LokiFrontier.Stream[] of = new LokiFrontier.Stream[most];
    long[] oldest = new long[most];
    long[] newest = new long[most];
    for (int k = 0; k < batch.count(); k++) {
      int stream = batch.stream(k);
      int g = groupOf[stream];
      long ns = batch.timestampNanos(k);
      if (g < 0) {
        g = groups++;
        groupOf[stream] = g;
        of[g] = streams[stream];
        oldest[g] = ns;
        newest[g] = ns;
      } else {
        oldest[g] = Math.min(oldest[g], ns);
        newest[g] = Math.max(newest[g], ns);
      }
    }
    if (groups < most) {
      of = Arrays.copyOf(of, groups);
      oldest = Arrays.copyOf(oldest, groups);
      newest = Arrays.copyOf(newest, groups);
    }
    return admit(batch, groupOf, of, oldest, newest);
  }

  /**
   * Sends {@code batch} once the frontier admits it: as one push, or with each stream the
   * frontier names in a push of its own ({@code groupOf}: each stream's index in {@code of}, or
   * -1).
   */
  private CompletableFuture<SendResult> admit(LineBatch batch, int[] groupOf, LokiFrontier.Stream[] of,
      long[] oldest, long[] newest) {
    LokiFrontier.Admission a = frontier.admit(of, oldest, newest);
    if (a.waitFor() != null) {
      // asked again on the I/O thread that answered the last of the pushes waited for
      return CompletableFuture.allOf(a.waitFor()).handle((v, e) -> null)
          .thenCompose(v -> admit(batch, groupOf, of, oldest, newest));
    }
    CompletableFuture<SendResult> all;
    if (!a.anyAlone()) {
      // the usual push: the whole batch, its answer the batch's, no stages to merge one result
      all = push.send(batch);
    } else {
      BitSet[] alone = new BitSet[of.length];
      BitSet together = new BitSet();
      for (int k = 0; k < batch.count(); k++) {
        int g = groupOf[batch.stream(k)];
        if (a.alone()[g]) {
          if (alone[g] == null) {
            alone[g] = new BitSet();
          }
          alone[g].set(k);
        } else {
          together.set(k);
        }
      }
      List<CompletableFuture<SendResult>> parts = new ArrayList<>();
      for (BitSet lines : alone) {
        if (lines != null) {
          parts.add(push.send(batch, lines));
        }
      }
      if (!together.isEmpty()) {
        parts.add(push.send(batch, together));
      }
      all = parts.size() == 1 ? parts.get(0)
          : CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0])).thenApply(v -> merge(batch.count(), joined(parts)));
    }
    all.whenComplete((r, e) -> frontier.answered(a));
    return all;
  }

  /** The results of sends that have all completed. */
  private static List<SendResult> joined(List<CompletableFuture<SendResult>> parts) {
    List<SendResult> results = new ArrayList<>(parts.size());
    for (CompletableFuture<SendResult> p : parts) {
      results.add(p.join());
    }
    return results;
  }

  /** One result for a batch sent as several pushes (results' line indexes are the batch's). */
  static SendResult merge(int lines, List<SendResult> results) {
    if (results.size() == 1) {
      return results.get(0);
    }
    int accepted = 0;
    int status = 0;
    BitSet retry = new BitSet();
    Map<String, SendResult.Rejection> byReason = new LinkedHashMap<>();
    List<SendResult.Rejection> counted = new ArrayList<>();
    StringBuilder detail = new StringBuilder();
    for (SendResult r : results) {
      accepted += r.accepted();
      retry.or(r.retry());
      if (status == 0 || (status / 100 == 2 && r.status() / 100 != 2)) {
        status = r.status();
      }
      for (SendResult.Rejection x : r.rejections()) {
        SendResult.Rejection before = byReason.get(x.reason());
        if (x.lines() == null) {
          counted.add(x);
        } else if (before == null) {
          byReason.put(x.reason(), new SendResult.Rejection(x.reason(), x.count(), (BitSet) x.lines().clone()));
        } else {
          before.lines().or(x.lines());
          byReason.put(x.reason(), new SendResult.Rejection(x.reason(), before.count() + x.count(), before.lines()));
        }
      }
      if (!r.detail().isEmpty()) {
        detail.append(detail.length() > 0 ? " | " : "").append(r.detail());
      }
    }
    List<SendResult.Rejection> rejections = new ArrayList<>(byReason.values());
    rejections.addAll(counted);
    int rejected = rejections.stream().mapToInt(SendResult.Rejection::count).sum();
    SendResult.Kind kind;
    if (rejected == 0 && retry.isEmpty()) {
      kind = SendResult.Kind.ACCEPTED;
    } else if (accepted == 0 && rejected == 0) {
      kind = SendResult.Kind.RETRYABLE;
    } else if (accepted == 0 && retry.isEmpty()) {
      kind = SendResult.Kind.FATAL;
    } else {
      kind = SendResult.Kind.PARTIAL;
    }
    return new SendResult(kind, status, accepted, List.copyOf(rejections), retry, SendResult.bounded(detail.toString()));
  }

  @Override
  public void close() {
    push.close();
  }

  /** Encodes the lines {@code lines} of {@code batch}; synchronized, as a push held back is sent from an I/O thread. */
  private synchronized String encode(LineBatch batch, BitSet lines, JsonBytes out) {
    if (json != null) {
      json.encode(batch, lines, out);
      return "application/json";
    }
    proto.encode(batch, lines, raw);
    compress(raw, out);
    // Loki reads a raw snappy block for protobuf, so no Content-Encoding header.
    return "application/x-protobuf";
  }
  /** Snappy-compresses {@code raw} into {@code out} (cleared first) as one raw block. */
  private static void compress(JsonBytes raw, JsonBytes out) {
    try {
      out.clear();
      byte[] dst = out.reserve(Snappy.maxCompressedLength(raw.size()));
      out.size(Snappy.rawCompress(raw.array(), 0, raw.size(), dst, 0));
    } catch (IOException e) {
      throw new UncheckedIOException("Snappy could not compress a Loki push body.", e);
    }
  }

  /** The class of Loki's answer {@code status} with {@code body} to a push of {@code batch}. */
  static SendResult classify(LineBatch batch, int status, byte[] body) {
    BitSet all = new BitSet();
    all.set(0, batch.count());
    return classify(batch, all, status, body);
  }

  /** The class of Loki's answer {@code status} with {@code body} to a push of the lines {@code sent} of {@code batch}. */
  static SendResult classify(LineBatch batch, BitSet sent, int status, byte[] body) {
    int lines = sent.cardinality();
    if (status >= 200 && status < 300) {
      return SendResult.accepted(lines, status);
    }
    if (status == 400) {
      String text = HttpAnswers.text(body);
      if (text.contains(STRUCTURED_METADATA_DISALLOWED)) {
        // the body names a stream: the reason must not, so every batch counts under one reason
        return SendResult.fatal(lines, status, "400 structured metadata disallowed",
            "Loki refuses the run id as structured metadata (limits_config.allow_structured_metadata"
                + " is false, or the schema is older than v13): allow it, or set run_id: label or none. "
                + SendResult.bounded(text));
      }
      SendResult partial = LokiPushErrors.classify(batch, sent, text);
      if (partial != null) {
        return partial;
      }
    }
    SendResult r = HttpAnswers.byStatus(lines, status, body);
    if (r.kind() == SendResult.Kind.RETRYABLE) {
      // the lines to send again are those of this push, by their indexes in the batch
      return new SendResult(r.kind(), r.status(), 0, r.rejections(), (BitSet) sent.clone(), r.detail());
    }
    return r;
  }
}
