package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Reports that tell a {@link Meter} how long each run waited and ran and how it ended, then pass
 * every report on unchanged. What the labels say is decided here, so every service that runs runs
 * exports the same values: {@code kind} is {@code push}, {@code pull} or {@code batch}; {@code
 * class} is the run class's tag; {@code outcome} is the check's end status. A run that never
 * started (its start failed) ends as {@code error} with no duration. Thread-safe when the wrapped
 * reports and the meter are.
 */
public final class MeteredReports implements RunReports {
  /** Every kind label, for a meter that registers its series up front. */
  public static final List<String> KINDS = List.of("push", "pull", "batch");

  /** Every outcome label: the ended statuses of a check. */
  public static final List<String> OUTCOMES =
      List.of(
          CheckStatus.SUCCESS.wire(),
          CheckStatus.FAILURE.wire(),
          CheckStatus.CANCELLED.wire(),
          CheckStatus.ERROR.wire());

  /** Where the figures go: a service's metrics registry, or a test's list. */
  public interface Meter {
    /** Keeps nothing. */
    Meter NONE =
        new Meter() {
          @Override
          public void started(String kind, String runClass, Duration queueWait) {}

          @Override
          public void ended(String kind, String runClass, String outcome, Duration ran) {}
        };

    /** A run took its job after waiting {@code queueWait} since its check was filed. */
    void started(String kind, String runClass, Duration queueWait);

    /** A run ended; {@code ran} is null for one that never started. */
    void ended(String kind, String runClass, String outcome, Duration ran);
  }

  private final RunReports reports;
  private final Meter meter;
  private final Clock clock;

  public MeteredReports(RunReports reports, Meter meter, Clock clock) {
    this.reports = Objects.requireNonNull(reports);
    this.meter = Objects.requireNonNull(meter);
    this.clock = Objects.requireNonNull(clock);
  }

  /** The kind label of a run: what it checks. */
  public static String kind(RunRequest request) {
    return request.subjectKind() == SubjectKind.REF
        ? "push"
        : request.subjectKind().name().toLowerCase(Locale.ROOT);
  }

  @Override
  public void started(PlannedRun run, CheckRecord running) throws XrpcException {
    reports.started(run, running);
    RunRequest r = run.request();
    meter.started(kind(r), r.runClass().tag(), between(run.check().createdAt(), started(running)));
  }

  @Override
  public RunListener listener(PlannedRun run) {
    return reports.listener(run);
  }

  @Override
  public void ended(PlannedRun run, CheckRecord running, RunResult result, String fault) {
    reports.ended(run, running, result, fault);
    RunRequest r = run.request();
    if (result == null) {
      meter.ended(kind(r), r.runClass().tag(), CheckStatus.ERROR.wire(), null);
      return;
    }
    Instant began = running == null ? null : running.startedAt();
    meter.ended(
        kind(r),
        r.runClass().tag(),
        Checks.status(result).wire(),
        began == null ? null : between(began, clock.instant()));
  }

  @Override
  public void cancelledUnstarted(PlannedRun run, String why) {
    reports.cancelledUnstarted(run, why);
    RunRequest r = run.request();
    meter.ended(kind(r), r.runClass().tag(), CheckStatus.CANCELLED.wire(), null);
  }

  @Override
  public void withdrawn(PlannedRun run, String why) {
    // Withdrawn runs leave no check behind: no run ended.
    reports.withdrawn(run, why);
  }

  private Instant started(CheckRecord running) {
    return running != null && running.startedAt() != null ? running.startedAt() : clock.instant();
  }

  /** Never negative: clocks of two processes may disagree by a little. */
  private static Duration between(Instant from, Instant to) {
    if (from == null || to == null || to.isBefore(from)) {
      return Duration.ZERO;
    }
    return Duration.between(from, to);
  }
}
