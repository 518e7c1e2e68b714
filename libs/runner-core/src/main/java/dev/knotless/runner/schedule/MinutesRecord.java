package dev.knotless.runner.schedule;

import java.time.Instant;

/**
 * What an owner's public {@code dev.knotless.minutes} record says. Private repositories' minutes
 * are never in it: the record is public.
 *
 * @param ownerDid the owner, also the record's key
 * @param minutes whole minutes of public steps in the last 30 days
 * @param allowanceMinutes the owner's public allowance, or {@link SchedulerConfig#UNLIMITED}
 * @param stopsCountingAt when the oldest minutes counted now stop counting (now, with none)
 */
public record MinutesRecord(
    String ownerDid, long minutes, long allowanceMinutes, Instant stopsCountingAt) {}
