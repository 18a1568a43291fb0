package io.logbench.schedule;

import java.io.Serializable;

/**
 * One step of a {@link LadderSchedule}, for reports: the rate ramps from the previous step's rate
 * to {@code targetRate} over {@code [rampStartNanos, holdStartNanos)} and holds it over
 * {@code [holdStartNanos, holdEndNanos)}; offsets are from the run's start.
 *
 * @param index step number from 0
 * @param targetRate lines per second this step ramps to and holds
 * @param rampStartNanos offset at which the ramp begins
 * @param holdStartNanos offset at which the ramp ends and the hold begins
 * @param holdEndNanos offset at which the hold ends (the next step's ramp start)
 */
public record LadderStep(
    int index, long targetRate, long rampStartNanos, long holdStartNanos, long holdEndNanos)
    implements Serializable {}
