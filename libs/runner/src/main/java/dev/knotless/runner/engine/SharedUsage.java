package dev.knotless.runner.engine;

import dev.knotless.runner.schedule.MinutesRecords;
import dev.knotless.runner.schedule.RunEnded;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SchedulerConfig;
import dev.knotless.runner.schedule.UsageLedger;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.UsageSeed;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's share of the runner's usage, kept whole in the shared state of the distributed shape
 * (a reconciler that runs steps, or the scheduler that runs pods): each run's step time goes into
 * its repository's {@code used} in PostgreSQL, the scheduler's ledger is caught up with every
 * worker's from there, and the owners' minutes records are decided and written from the whole
 * runner's usage, as the all-in-one writes them from its own. Thread-safe.
 */
public final class SharedUsage {
  private static final Logger LOG = LoggerFactory.getLogger(SharedUsage.class);

  private final StateStore state;
  private final SchedulerConfig config;
  private final MinutesWriter minutes;
  private final Clock clock;
  private final UsageLedger ledger = new UsageLedger();
  private final MinutesRecords marks = new MinutesRecords();

  /**
   * @param minutes where owners' minutes records go, or null to write none
   */
  public SharedUsage(StateStore state, SchedulerConfig config, MinutesWriter minutes, Clock clock) {
    this.state = state;
    this.config = config;
    this.minutes = minutes;
    this.clock = clock;
    // Allowances count what every worker's runs used, as the state in PostgreSQL has it.
    UsageSeed.into(ledger, state);
  }

  /** The scheduler's ledger; touched only under the job pool's lock. */
  public UsageLedger ledger() {
    return ledger;
  }

  /**
   * A run's step time into the shared state; then, for a public run, the owner's minutes record
   * when the spacing or the 80% and 100% marks of the whole runner's usage say so. A database that
   * cannot be reached costs the record of this run's time, never the run's end.
   */
  public void ended(RunEnded ended) {
    RunRequest r = ended.request();
    try {
      state.update(
          r.repo(),
          s ->
              s.withUsage(
                  ended.day(),
                  ended.stepMillis(),
                  r.privateRepo(),
                  UsageLedger.day(clock.instant())));
      if (r.privateRepo() || minutes == null) {
        return;
      }
      Instant now = clock.instant();
      UsageLedger owner = ownerUsage(r.ownerDid());
      long after = owner.usedMillis(r.ownerDid(), false, UsageLedger.day(now));
      long allowance = config.allowanceMillis(r.ownerDid(), false);
      boolean writeNow;
      synchronized (marks) {
        writeNow = marks.runEnded(r.ownerDid(), after - ended.stepMillis(), after, allowance, now);
      }
      if (writeNow) {
        write(r.ownerDid(), owner);
      }
    } catch (RuntimeException e) {
      LOG.warn("{}: the usage of run {} was not kept: {}", r.repo(), r.runId(), e.getMessage());
    }
  }

  /**
   * Catches the ledger up with what every worker's runs used (under {@code jobs}' lock, which
   * guards the scheduler), and writes the records the five-minute spacing held back, once due.
   */
  public void refresh(Jobs jobs) {
    try {
      UsageLedger all = new UsageLedger();
      UsageSeed.into(all, state);
      jobs.inspect(
          s -> {
            ledger.catchUp(all);
            return null;
          });
      List<String> due;
      synchronized (marks) {
        due = marks.due(clock.instant());
      }
      if (minutes != null) {
        due.forEach(o -> write(o, ownerUsage(o)));
      }
    } catch (RuntimeException e) {
      LOG.warn("usage not caught up with the other workers': {}", e.getMessage());
    }
  }

  /** The owner's public usage as every worker's runs added it to the shared state. */
  private UsageLedger ownerUsage(String ownerDid) {
    UsageLedger out = new UsageLedger();
    for (String repo : state.repositories()) {
      if (repo.startsWith(ownerDid + "/")) {
        state
            .load(repo)
            .ifPresent(
                s -> s.used().forEach((day, millis) -> out.add(ownerDid, false, day, millis)));
      }
    }
    return out;
  }

  private void write(String ownerDid, UsageLedger owner) {
    minutes.write(MinutesRecords.record(ownerDid, owner, config, clock.instant()));
  }
}
