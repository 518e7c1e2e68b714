package dev.knotless.runner.schedule;

import java.time.Instant;

/**
 * A run still waiting, with the reason, as of the last {@link Scheduler#admit}.
 *
 * @param request the run
 * @param reason the first thing it needs that is not free
 * @param since when it was submitted
 */
public record WaitingRun(RunRequest request, WaitReason reason, Instant since) {}
