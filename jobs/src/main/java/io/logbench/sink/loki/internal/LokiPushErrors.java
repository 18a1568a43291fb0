package io.logbench.sink.loki.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Rejection;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Loki 400 body that rejects some entries of a push while the others are stored: entries
 * older than {@code reject_old_samples_max_age} ("timestamp too old", from the distributor, for
 * every stream), out of order beyond the stream's window ("entry too far behind", from the
 * ingester) and lines over {@code max_line_size}. It names the rejected lines when the body
 * allows, else counts them.
 *
 * <p>The ingester's part of the body is about <em>the push's last stream only</em> (Loki 3.4.6,
 * {@code instance.Push} keeps the error of the last stream it appended): at most 10 of its entries
 * listed ({@code max_returned_errors}) with their timestamps, then {@code user '<tenant>', total
 * ignored: X out of Y for stream: {labels}}. Rejected entries of the push's other streams are
 * not in the body at all (and a push whose last stream took every entry is answered 204): {@link
 * LokiFrontier} is what keeps those from being counted as stored.
 */
public final class LokiPushErrors {

  public static final String TOO_OLD = "400 timestamp too old";
  public static final String TOO_FAR_BEHIND = "400 entry too far behind";
  public static final String LINE_TOO_LONG = "400 line too long";

  private static final Pattern ENTRY_IGNORED =
      Pattern.compile(
          "entry with timestamp (\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?)"
              + " ([+-]\\d{4}) \\S+ ignored, reason: '([^']*)'");
  private static final Pattern TOTAL_IGNORED = Pattern.compile("total ignored: (\\d+) out of (\\d+)");
  private static final Pattern TOO_OLD_ENTRY =
      Pattern.compile("has timestamp too old: [^,]*, oldest acceptable timestamp is: ([0-9T:.+\\-Z]+)");
  /** The cutoff in an "entry too far behind" reason (RFC 3339, whole seconds). */
  private static final Pattern BEHIND_CUTOFF =
      Pattern.compile("too far behind.*oldest acceptable timestamp is: ([0-9T:.+\\-Z]+)");
  private static final Pattern MAX_SIZE = Pattern.compile("Max entry size '(\\d+)' bytes exceeded");

  private LokiPushErrors() {}

  /**
   * The partial (or wholly rejecting) result a 400 {@code body} describes, or null when the body
   * is not one of Loki's per-entry rejections.
   */
  public static SendResult classify(LineBatch batch, String body) {
    BitSet all = new BitSet();
    all.set(0, batch.count());
    return classify(batch, all, body);
  }

  /**
   * The partial (or wholly rejecting) result a 400 {@code body} describes for a push of the lines
   * {@code sent} of {@code batch} (line indexes those of the batch), or null when the body is not
   * one of Loki's per-entry rejections.
   */
  public static SendResult classify(LineBatch batch, BitSet sent, String body) {
    int n = sent.cardinality();
    Map<String, BitSet> exact = new LinkedHashMap<>();
    Map<String, Integer> counted = new LinkedHashMap<>();
    tooOld(batch, sent, body, exact, counted);
    ingesterIgnored(batch, lastStream(batch, sent), body, exact, counted);
    Matcher size = MAX_SIZE.matcher(body);
    if (size.find()) {
      long max = Long.parseLong(size.group(1));
      BitSet lines = new BitSet();
      for (int k = sent.nextSetBit(0); k >= 0; k = sent.nextSetBit(k + 1)) {
        if (batch.rawLength(k) > max) {
          lines.set(k);
        }
      }
      if (!lines.isEmpty()) {
        exact.put(LINE_TOO_LONG, lines);
      }
    }
    List<Rejection> rejections = new ArrayList<>();
    int rejected = 0;
    for (Map.Entry<String, BitSet> e : exact.entrySet()) {
      rejections.add(new Rejection(e.getKey(), e.getValue().cardinality(), e.getValue()));
      rejected += e.getValue().cardinality();
    }
    for (Map.Entry<String, Integer> e : counted.entrySet()) {
      rejections.add(new Rejection(e.getKey(), e.getValue(), null));
      rejected += e.getValue();
    }
    if (rejected == 0) {
      return null;
    }
    rejected = Math.min(rejected, n);
    int accepted = n - rejected;
    return new SendResult(
        accepted > 0 ? SendResult.Kind.PARTIAL : SendResult.Kind.FATAL,
        400,
        accepted,
        List.copyOf(rejections),
        new BitSet(),
        SendResult.bounded(body));
  }

  /**
   * The distributor's "has timestamp too old" errors name a cutoff at whole seconds: lines before
   * it are rejected, lines in the cutoff's own second are ambiguous unless the count settles it.
   */
  /** The lines of the stream that comes last in a push of {@code sent} (streams in order of first appearance). */
  static BitSet lastStream(LineBatch batch, BitSet sent) {
    int last = -1;
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int k = sent.nextSetBit(0); k >= 0; k = sent.nextSetBit(k + 1)) {
      if (seen.add(batch.stream(k))) {
        last = batch.stream(k);
      }
    }
    BitSet lines = new BitSet();
    for (int k = sent.nextSetBit(0); k >= 0; k = sent.nextSetBit(k + 1)) {
      if (batch.stream(k) == last) {
        lines.set(k);
      }
    }
    return lines;
  }

  private static void tooOld(
      LineBatch batch, BitSet sent, String body, Map<String, BitSet> exact, Map<String, Integer> counted) {
    Matcher m = TOO_OLD_ENTRY.matcher(body);
    int occurrences = 0;
    String cutoffText = null;
    while (m.find()) {
      occurrences++;
      cutoffText = cutoffText == null ? m.group(1) : cutoffText;
    }
    if (occurrences == 0) {
      if (body.contains("timestamp too old")) {
        counted.put(TOO_OLD, totalIgnored(body, 1));
      }
      return;
    }
    long cutoff;
    try {
      OffsetDateTime t = OffsetDateTime.parse(cutoffText);
      cutoff = t.toEpochSecond() * 1_000_000_000L + t.getNano();
    } catch (DateTimeParseException e) {
      counted.put(TOO_OLD, occurrences);
      return;
    }
    boolean wholeSecond = cutoff % 1_000_000_000L == 0;
    BitSet definite = new BitSet();
    BitSet ambiguous = new BitSet();
    for (int k = sent.nextSetBit(0); k >= 0; k = sent.nextSetBit(k + 1)) {
      long ns = batch.timestampNanos(k);
      if (ns < cutoff) {
        definite.set(k);
      } else if (wholeSecond && ns < cutoff + 1_000_000_000L) {
        ambiguous.set(k);
      }
    }
    if (ambiguous.isEmpty() || occurrences == definite.cardinality()) {
      exact.put(TOO_OLD, definite);
    } else if (occurrences == definite.cardinality() + ambiguous.cardinality()) {
      definite.or(ambiguous);
      exact.put(TOO_OLD, definite);
    } else {
      counted.put(TOO_OLD, Math.max(occurrences, definite.cardinality()));
    }
  }

  /**
   * The ingester's "entry with timestamp ... ignored" list (at most 10 entries) and its "total
   * ignored: X out of Y", about the lines {@code scope} of the push's last stream: the listed
   * entries are named by their nanoseconds; past the list, the lines before the cutoff the reasons
   * give ("oldest acceptable timestamp is", whole seconds: Loki's cutoff lies within that second)
   * are named when they and the lines in the cutoff's second settle the count X, else X is
   * counted without naming lines.
   */
  private static void ingesterIgnored(
      LineBatch batch, BitSet scope, String body, Map<String, BitSet> exact, Map<String, Integer> counted) {
    Map<Long, String> reasonByNanos = new HashMap<>();
    Matcher m = ENTRY_IGNORED.matcher(body);
    String firstReason = null;
    long cutoff = Long.MIN_VALUE;
    while (m.find()) {
      long ns = goTimeNanos(m.group(1), m.group(2));
      String reason = reason(m.group(3));
      firstReason = firstReason == null ? reason : firstReason;
      reasonByNanos.put(ns, reason);
      Matcher c = BEHIND_CUTOFF.matcher(m.group(3));
      if (c.find()) {
        try {
          OffsetDateTime t = OffsetDateTime.parse(c.group(1));
          cutoff = Math.max(cutoff, t.toEpochSecond() * 1_000_000_000L + t.getNano());
        } catch (DateTimeParseException e) {
          // named by the list and counted by the total only
        }
      }
    }
    int total = 0;
    Matcher t = TOTAL_IGNORED.matcher(body);
    while (t.find()) {
      total += Integer.parseInt(t.group(1));
    }
    if (reasonByNanos.isEmpty() && total == 0) {
      return;
    }
    Map<String, BitSet> found = new LinkedHashMap<>();
    int matched = 0;
    for (int k = scope.nextSetBit(0); k >= 0; k = scope.nextSetBit(k + 1)) {
      String reason = reasonByNanos.get(batch.timestampNanos(k));
      if (reason != null) {
        found.computeIfAbsent(reason, r -> new BitSet()).set(k);
        matched++;
      }
    }
    if (total <= matched) {
      found.forEach((r, lines) -> merge(exact, r, lines));
      return;
    }
    // Loki lists at most 10 entries per stream (max_returned_errors): name the rest by the cutoff
    if (cutoff != Long.MIN_VALUE && found.size() == 1 && found.containsKey(TOO_FAR_BEHIND)) {
      BitSet definite = (BitSet) found.get(TOO_FAR_BEHIND).clone();
      BitSet ambiguous = new BitSet();
      for (int k = scope.nextSetBit(0); k >= 0; k = scope.nextSetBit(k + 1)) {
        long ns = batch.timestampNanos(k);
        if (ns < cutoff) {
          definite.set(k);
        } else if (ns < cutoff + 1_000_000_000L && !definite.get(k)) {
          ambiguous.set(k);
        }
      }
      if (definite.cardinality() == total) {
        merge(exact, TOO_FAR_BEHIND, definite);
        return;
      }
      if (definite.cardinality() + ambiguous.cardinality() == total) {
        definite.or(ambiguous);
        merge(exact, TOO_FAR_BEHIND, definite);
        return;
      }
    }
    String reason = firstReason != null ? firstReason : TOO_FAR_BEHIND;
    counted.merge(reason, total - matched, Integer::sum);
    found.forEach((r, lines) -> counted.merge(r, lines.cardinality(), Integer::sum));
  }

  private static void merge(Map<String, BitSet> exact, String reason, BitSet lines) {
    exact.computeIfAbsent(reason, r -> new BitSet()).or(lines);
  }

  private static int totalIgnored(String body, int fallback) {
    Matcher t = TOTAL_IGNORED.matcher(body);
    int total = 0;
    while (t.find()) {
      total += Integer.parseInt(t.group(1));
    }
    return total > 0 ? total : fallback;
  }

  private static String reason(String text) {
    if (text.contains("too far behind")) {
      return TOO_FAR_BEHIND;
    }
    if (text.contains("timestamp too old")) {
      return TOO_OLD;
    }
    String s = text.strip();
    int comma = s.indexOf(',');
    s = comma > 0 ? s.substring(0, comma) : s;
    return "400 " + (s.length() <= 60 ? s : s.substring(0, 60));
  }

  /** Nanoseconds of Go's {@code time.Time.String()} form, e.g. {@code 2021-05-01 03:00:00.5 +0000 UTC}. */
  static long goTimeNanos(String dateTime, String offset) {
    int dot = dateTime.indexOf('.');
    String whole = dot < 0 ? dateTime : dateTime.substring(0, dot);
    long nanos = 0;
    if (dot >= 0) {
      String fraction = (dateTime.substring(dot + 1) + "000000000").substring(0, 9);
      nanos = Long.parseLong(fraction);
    }
    LocalDateTime local = LocalDateTime.parse(whole.replace(' ', 'T'));
    ZoneOffset zone = ZoneOffset.of(offset.substring(0, 3) + ":" + offset.substring(3));
    return local.toEpochSecond(zone) * 1_000_000_000L + nanos;
  }
}
