package dev.knotless.runner.engine;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.schedule.MinutesRecord;
import dev.knotless.runner.schedule.SchedulerConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes owners' public {@code dev.knotless.minutes} records into the runner's account, keyed by
 * the owner's DID, on a thread of its own so that a slow PDS delays no run. When is the {@link
 * dev.knotless.runner.schedule.Scheduler}'s decision; this class only writes what it is handed.
 *
 * <p>Writes go out one at a time, in the order handed in. A record handed in while an older one for
 * the same owner still waits replaces it, so the PDS only ever gets an owner's newest figures and
 * never an older one after a newer. Thread-safe.
 */
public final class MinutesWriter implements AutoCloseable {

  /** The record's collection. */
  public static final String COLLECTION = "dev.knotless.minutes";

  private static final Logger LOG = LoggerFactory.getLogger(MinutesWriter.class);

  private final RetryingWrites writes;
  private final Clock clock;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(NamedThreads.of("knotless-minutes"));
  private final Map<String, MinutesRecord> pending = new LinkedHashMap<>();

  /** Writes as the account {@code writes} is logged in as, dating records by {@code clock}. */
  public MinutesWriter(RetryingWrites writes, Clock clock) {
    this.writes = writes;
    this.clock = clock;
  }

  /** Queues the record for writing; returns at once. */
  public void write(MinutesRecord record) {
    synchronized (pending) {
      if (pending.put(record.ownerDid(), record) != null) {
        return; // the write already queued for this owner will carry these figures
      }
    }
    thread.execute(() -> writeNow(record.ownerDid()));
  }

  private void writeNow(String ownerDid) {
    MinutesRecord record;
    synchronized (pending) {
      record = pending.remove(ownerDid);
    }
    if (record == null) {
      return;
    }
    try {
      writes.put(COLLECTION, ownerDid, toJson(record, clock.instant()));
      LOG.debug("minutes of {}: {} of {}", ownerDid, record.minutes(), record.allowanceMinutes());
    } catch (XrpcException e) {
      // The next run's end, or the next held-back write, writes newer figures.
      LOG.warn("could not write the minutes record of {}: {}", ownerDid, e.getMessage());
    }
  }

  /**
   * The record as lexicons/dev/knotless/minutes.json has it: {@code allowance} is left out for an
   * owner not held to one (no {@code --allowance}, {@code --unmetered}, or the runner's own
   * account).
   */
  static ObjectNode toJson(MinutesRecord r, Instant now) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("$type", COLLECTION);
    o.put("minutes", r.minutes());
    if (r.allowanceMinutes() != SchedulerConfig.UNLIMITED) {
      o.put("allowance", r.allowanceMinutes());
    }
    o.put("until", r.stopsCountingAt().truncatedTo(ChronoUnit.MILLIS).toString());
    o.put("updatedAt", now.truncatedTo(ChronoUnit.MILLIS).toString());
    return o;
  }

  /** Writes what is queued, waiting up to ten seconds for the PDS, then stops. */
  @Override
  public void close() throws InterruptedException {
    thread.shutdown();
    if (!thread.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS)) {
      LOG.warn("stopping with minutes records not written");
      thread.shutdownNow();
    }
  }
}
