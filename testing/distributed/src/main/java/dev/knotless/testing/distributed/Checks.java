package dev.knotless.testing.distributed;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/** Reading the runner's checks back from its account, and waiting for them. */
final class Checks {
  private Checks() {}

  /** Every check in the runner's account. */
  static List<Record> all(LocalDistributed shape) throws Exception {
    XrpcClient client = XrpcClient.create(shape.pds().pdsUrl());
    List<Record> out = new ArrayList<>();
    String cursor = null;
    do {
      var page =
          client.listRecords(shape.runner().did(), CheckRecord.COLLECTION, 100, cursor, false);
      out.addAll(page.records());
      cursor = page.records().isEmpty() ? null : page.cursor();
    } while (cursor != null);
    return out;
  }

  /** Waits for exactly one check that {@code matches}, and returns it. */
  static Record awaitOne(LocalDistributed shape, Duration max, Predicate<CheckRecord> matches)
      throws Exception {
    List<Record> found = new ArrayList<>();
    await(
        max,
        "a check that matches",
        () -> {
          found.clear();
          for (Record r : all(shape)) {
            if (matches.test(CheckRecord.fromJson(r.value()))) {
              found.add(r);
            }
          }
          return found.size() == 1;
        });
    return found.get(0);
  }

  /** The check's log blob, as text. */
  static String log(LocalDistributed shape, CheckRecord check) throws Exception {
    XrpcClient client = XrpcClient.create(shape.pds().pdsUrl());
    return new String(
        client.getBlob(shape.runner().did(), check.log().cid()), StandardCharsets.UTF_8);
  }

  /**
   * Polls {@code done} every 200 ms until it holds; fails naming {@code what} after {@code max}.
   */
  static void await(Duration max, String what, Callable<Boolean> done) throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    XrpcException unanswered = null;
    while (true) {
      try {
        if (done.call()) {
          return;
        }
      } catch (XrpcException e) {
        // The test's own read of the PDS went unanswered (a loaded machine): ask again, as the
        // services do; any answer the PDS gives still fails the test.
        if (e.status() != 0) {
          throw e;
        }
        unanswered = e;
      }
      if (System.nanoTime() > deadline) {
        AssertionError timedOut = new AssertionError("waited " + max + " for " + what);
        if (unanswered != null) {
          timedOut.addSuppressed(unanswered);
        }
        throw timedOut;
      }
      Thread.sleep(200);
    }
  }

  /** The scheduler of {@code schedulers} whose gauge says it holds the Lease, or null. */
  static ServiceProcess leader(List<ServiceProcess> schedulers) {
    for (ServiceProcess s : schedulers) {
      try {
        if (s.metric("knotless_run_scheduler_leader") == 1.0) {
          return s;
        }
      } catch (java.io.IOException e) {
        // A scheduler that does not answer does not lead.
      }
    }
    return null;
  }

  /** How many passes a reconciler has ended without an error. */
  static double passes(ServiceProcess reconciler) throws java.io.IOException {
    return reconciler.metric("knotless_run_passes_total{outcome=\"ok\"");
  }
}
