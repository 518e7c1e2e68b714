package dev.knotless.runner.schedule;

import java.util.Objects;
import java.util.Set;

/**
 * The scheduling flags, as plain values.
 *
 * @param jobs {@code --jobs}: runs going at once, all classes together (at least 1)
 * @param pullJobs {@code --pull-jobs}: jobs every class but MAIN may hold together, 1 to {@code
 *     jobs}
 * @param ownerJobs {@code --owner-jobs}: jobs one owner's runs may hold at once, 1 to {@code jobs}
 * @param allowanceMinutes {@code --allowance}: minutes of steps per owner over 30 days for public
 *     repositories, or {@link #UNLIMITED} when the flag is not given
 * @param privateAllowanceMinutes {@code --private-allowance}: the same for private repositories
 * @param runnerDid the runner's own account, never held to an allowance
 * @param unmetered {@code --unmetered} owners' DIDs, never held to an allowance
 */
public record SchedulerConfig(
    int jobs,
    int pullJobs,
    int ownerJobs,
    long allowanceMinutes,
    long privateAllowanceMinutes,
    String runnerDid,
    Set<String> unmetered) {

  /** No allowance: the flag was not given, so no one is held to one. */
  public static final long UNLIMITED = -1;

  public SchedulerConfig {
    if (jobs < 1) {
      throw new IllegalArgumentException("--jobs must be at least 1, got " + jobs);
    }
    if (pullJobs < 1 || pullJobs > jobs) {
      throw new IllegalArgumentException(
          "--pull-jobs must be between 1 and --jobs (" + jobs + "), got " + pullJobs);
    }
    if (ownerJobs < 1 || ownerJobs > jobs) {
      throw new IllegalArgumentException(
          "--owner-jobs must be between 1 and --jobs (" + jobs + "), got " + ownerJobs);
    }
    checkAllowance(allowanceMinutes, "--allowance");
    checkAllowance(privateAllowanceMinutes, "--private-allowance");
    Objects.requireNonNull(runnerDid, "runnerDid");
    unmetered = Set.copyOf(unmetered);
  }

  /**
   * The defaults for a number of jobs: half of them for classes other than MAIN (at least one, so
   * pulls run at all with {@code --jobs 1}), every job for one owner, and no allowance.
   */
  public static SchedulerConfig defaults(int jobs, String runnerDid) {
    return new SchedulerConfig(
        jobs, Math.max(1, jobs / 2), jobs, UNLIMITED, UNLIMITED, runnerDid, Set.of());
  }

  /** A copy with other caps. */
  public SchedulerConfig withCaps(int pullJobs, int ownerJobs) {
    return new SchedulerConfig(
        jobs, pullJobs, ownerJobs, allowanceMinutes, privateAllowanceMinutes, runnerDid, unmetered);
  }

  /** A copy with allowances (minutes, or {@link #UNLIMITED}) and the owners exempt from them. */
  public SchedulerConfig withAllowances(
      long publicMinutes, long privateMinutes, Set<String> unmeteredOwners) {
    return new SchedulerConfig(
        jobs, pullJobs, ownerJobs, publicMinutes, privateMinutes, runnerDid, unmeteredOwners);
  }

  /**
   * The allowance an owner is held to for one kind of repository, in milliseconds, or {@link
   * #UNLIMITED}.
   */
  public long allowanceMillis(String ownerDid, boolean privateRepo) {
    long minutes = privateRepo ? privateAllowanceMinutes : allowanceMinutes;
    if (minutes == UNLIMITED || ownerDid.equals(runnerDid) || unmetered.contains(ownerDid)) {
      return UNLIMITED;
    }
    return minutes * 60_000L;
  }

  private static void checkAllowance(long minutes, String flag) {
    if (minutes < 0 && minutes != UNLIMITED) {
      throw new IllegalArgumentException(flag + " must be a number of minutes, got " + minutes);
    }
  }
}
