package dev.knotless.runner.schedule;

import java.time.LocalDate;

/**
 * What the caller records as a run ends: the step time to add to the state file's {@code used} (or
 * {@code used_private}, for a private repository) for the repository and day, and whether the
 * owner's public minutes record must be written now.
 *
 * @param request the run
 * @param day the UTC day the time counts on
 * @param stepMillis milliseconds the run's steps took
 * @param writeMinutesNow whether to write the owner's minutes record at once
 */
public record RunEnded(
    RunRequest request, LocalDate day, long stepMillis, boolean writeMinutesNow) {}
