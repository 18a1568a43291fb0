package io.logbench.verify;

import io.logbench.replay.Replays;
import io.logbench.verify.Verdict.Status;

/**
 * Tells at-least-once replay from a backend fault: a DUPLICATE window whose extra copies are all
 * of lines a restore sent again (the run directory's restore records) is REPLAYED. Pure.
 *
 * <ul>
 *   <li>By ids, when the window's drill-down is complete: every id found more than once is inside
 *       a replayed range, no id outside the window's expected range was found, and the extra copies
 *       add up to observed - acked (so no lost line hides behind a copy);
 *   <li>by count only, when there is no complete drill-down (drill-down off, or impossible):
 *       observed - acked is at most the window's lines that restores sent again (once per restore),
 *       and the detail says it was judged by count only.
 * </ul>
 *
 * Anything else stays DUPLICATE, with what the records do and do not explain in the detail.
 */
public final class ReplayRule {

  /** Most replayed ranges named in a detail. */
  static final int RANGES_NAMED = 3;

  private ReplayRule() {}

  /**
   * The verdict of a window in the light of the restore records.
   *
   * @param v the window's verdict
   * @param drill its drill-down (made with the records' ids told apart), or null when none was made
   * @param replays the backend's restore records
   * @param firstSeq the window's first expected sequence id
   * @param endSeq one past its last
   */
  public static Verdict judge(Verdict v, Drill drill, Replays replays, long firstSeq, long endSeq) {
    if (v.status() != Status.DUPLICATE || v.observed() <= v.acked() || replays.isEmpty()) {
      return v;
    }
    long extra = v.observed() - v.acked();
    long replayedLines = replays.linesIn(firstSeq, endSeq);
    if (replayedLines == 0) {
      return v;
    }
    String ranges = replays.describe(firstSeq, endSeq, RANGES_NAMED);
    if (drill != null && drill.complete()) {
      if (drill.strangersFound() == 0 && drill.duplicateCopies() == 0 && drill.replayedCopies() == extra) {
        return v.with(Status.REPLAYED, extra + " line(s) more than acknowledged, every extra copy of a line sent"
            + " again after a restore (at-least-once replay): " + ranges + tail(v));
      }
      return v.with(Status.DUPLICATE, v.detail() + "; restores explain " + drill.replayedCopies()
          + " extra cop(ies), not " + explainNot(drill, extra) + " (replayed: " + ranges + ")");
    }
    String how = drill == null ? "no drill-down was made" : "the drill-down was not complete: " + drill.note();
    if (extra <= replayedLines) {
      return v.with(Status.REPLAYED, extra + " line(s) more than acknowledged, no more than the window's "
          + replayedLines + " line(s) sent again after a restore (at-least-once replay), judged by count only ("
          + how + "): " + ranges + tail(v));
    }
    return v.with(Status.DUPLICATE, v.detail() + "; restores sent only " + replayedLines
        + " line(s) of this window again, judged by count only (" + how + "): " + ranges);
  }

  /** What the records leave unexplained. */
  private static String explainNot(Drill d, long extra) {
    StringBuilder b = new StringBuilder();
    if (d.duplicateCopies() > 0) {
      b.append(d.duplicateCopies()).append(" extra cop(ies) of lines no restore sent again");
    }
    if (d.strangersFound() > 0) {
      b.append(b.length() == 0 ? "" : ", ").append(d.strangersFound()).append(" line(s) outside the window's ids");
    }
    long lost = d.replayedCopies() + d.duplicateCopies() - extra;
    if (lost > 0 && d.strangersFound() == 0) {
      b.append(b.length() == 0 ? "" : ", ").append(lost).append(" acknowledged line(s) not found behind the copies");
    }
    return b.length() == 0 ? "the rest" : b.toString();
  }

  /** The verdict's rejection reasons, kept after the replay's explanation. */
  private static String tail(Verdict v) {
    int also = v.detail().indexOf("; also ");
    return also < 0 ? "" : v.detail().substring(also);
  }
}
