package dev.knotless.runner.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.FilingAhead;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.workflow.Superseded;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A push's last run handed to its job while its queued check is still being filed: against the
 * reference PDS, whichever of the two writes reaches it first, the check ends where the run left it
 * and never goes back to queued.
 */
@WithPds
class FilingAheadIT {

  private static final String PUT = "com.atproto.repo.putRecord";

  private final PdsInstance pds;
  private final ExecutorService thread = Executors.newSingleThreadExecutor();
  private CountingProxy proxy;
  private CheckFiler filer;
  private FiledChecks reports;
  private String did;

  FilingAheadIT(PdsInstance pds) {
    this.pds = pds;
  }

  @BeforeEach
  void login() throws Exception {
    Account runner = pds.createAccount("ahead");
    proxy = CountingProxy.start(pds.pdsUrl());
    XrpcClient client = XrpcClient.create(proxy.url());
    client.login(runner.handle(), runner.password());
    did = runner.did();
    filer = new CheckFiler(new RetryingWrites(client));
    reports = new FiledChecks(filer, Clock.systemUTC());
    proxy.reset();
  }

  @AfterEach
  void close() {
    thread.shutdownNow();
    proxy.close();
  }

  private static PlannedRun run(String rkey, CheckRecord queued, FilingAhead ahead) {
    RunRequest request =
        new RunRequest(
            rkey,
            "did:plc:owner",
            "did:plc:owner/3kapp",
            "refs/heads/main",
            SubjectKind.REF,
            "ci",
            "a".repeat(40),
            RunClass.MAIN,
            Superseded.CANCEL,
            false);
    return new PlannedRun("owner/app", request, queued, () -> null).behind(ahead);
  }

  private static CheckRecord queued(String workflow) {
    return RunPlanner.pushCheck(
        "at://did:plc:owner/dev.knotless.repo/3kapp",
        "refs/heads/main",
        "a".repeat(40),
        workflow,
        Instant.now());
  }

  /** Files {@code p}'s check running on the test's thread, as its job would. */
  private CompletableFuture<Void> startedAsync(PlannedRun p, CheckRecord queued) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            reports.started(p, Checks.started(queued, Instant.now()));
          } catch (XrpcException e) {
            throw new IllegalStateException(e);
          }
        },
        thread);
  }

  private CheckStatus filed(String rkey) throws Exception {
    return CheckRecord.fromJson(
            XrpcClient.create(pds.pdsUrl()).getRecord(did, CheckRecord.COLLECTION, rkey).value())
        .status();
  }

  /** Waits until the proxy has answered {@code n} putRecord calls. */
  private void awaitPuts(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (proxy.spans().stream().filter(s -> s.method().equals(PUT)).count() < n) {
      assertTrue(System.nanoTime() < deadline, "the PDS answered fewer than " + n + " writes");
      Thread.sleep(5);
    }
  }

  @Test
  void theRunningWriteLandsOverTheQueuedOneWithoutWaitingForThePassToHearBack() throws Exception {
    CheckRecord queued = queued("ci");
    FilingAhead ahead = FilingAhead.of("k1", queued);
    PlannedRun p = run("k1", queued, ahead);
    // The pass's write went out and landed; its reply has not reached the pass yet.
    filer.file("k1", queued, ahead::sent);

    CompletableFuture<Void> started = startedAsync(p, queued);
    started.get(20, TimeUnit.SECONDS);
    assertEquals(CheckStatus.RUNNING, filed("k1"));
    assertEquals(2, proxy.requests(PUT), "the queued write and the guarded running one");
    ahead.landed();
  }

  @Test
  void aRunningWriteThatReachesThePdsFirstIsRefusedAndFiledAgainOnceTheQueuedOneLands()
      throws Exception {
    CheckRecord queued = queued("ci");
    FilingAhead ahead = FilingAhead.of("k2", queued);
    PlannedRun p = run("k2", queued, ahead);
    ahead.sent(); // said sent, but the queued write is held back: the running one gets there first

    CompletableFuture<Void> started = startedAsync(p, queued);
    awaitPuts(1);
    assertFalse(started.isDone(), "refused, the run waits for its queued check");
    assertEquals(
        XrpcException.Kind.RECORD_NOT_FOUND,
        assertThrows(XrpcException.class, () -> filed("k2")).kind(),
        "the guarded write did not land over nothing");

    filer.file("k2", queued);
    ahead.landed();
    started.get(20, TimeUnit.SECONDS);
    assertEquals(CheckStatus.RUNNING, filed("k2"), "running, not the queued write landing last");
    assertEquals(3, proxy.requests(PUT), "refused, queued, then running");
  }

  @Test
  void aRunCancelledWhileItsQueuedCheckIsOnItsWayEndsCancelledNotQueued() throws Exception {
    CheckRecord queued = queued("ci");
    FilingAhead ahead = FilingAhead.of("k3", queued);
    PlannedRun p = run("k3", queued, ahead);
    ahead.sent();

    CompletableFuture<Void> cancelled =
        CompletableFuture.runAsync(
            () -> reports.cancelledUnstarted(p, "superseded by a newer commit"), thread);
    assertThrows(TimeoutException.class, () -> cancelled.get(500, TimeUnit.MILLISECONDS));
    assertEquals(0, proxy.requests(PUT), "nothing is filed ahead of the queued check");

    filer.file("k3", queued);
    ahead.landed();
    cancelled.get(20, TimeUnit.SECONDS);
    assertEquals(CheckStatus.CANCELLED, filed("k3"));
  }

  @Test
  void aQueuedWriteThatFailsKeepsTheRunFromStartingAndSaysWhy() throws Exception {
    CheckRecord queued = queued("ci");
    FilingAhead ahead = FilingAhead.of("k4", queued);
    PlannedRun p = run("k4", queued, ahead);
    ahead.failed(
        new XrpcException(PUT, 503, "Unavailable", "the PDS is down for maintenance", null));

    ExecutionException e =
        assertThrows(
            ExecutionException.class, () -> startedAsync(p, queued).get(20, TimeUnit.SECONDS));
    assertTrue(
        e.getCause().getMessage().contains("the PDS is down for maintenance"),
        e.getCause().getMessage());
    assertEquals(0, proxy.requests(PUT), "no running check over a queued one that is not there");
  }
}
