package dev.knotless.cli;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.cli.checks.CheckEntry;
import dev.knotless.cli.checks.CheckSource;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless checks}, {@code check} and {@code log} against the reference PDS, reading check
 * records and log blobs filed as the runner files them: {@link CheckRecord#toJson} by putRecord,
 * the log by uploadBlob.
 */
@WithPds
class CheckToolsIT {
  /**
   * A log as a run can leave it: not UTF-8 throughout, carriage returns, escapes, no last newline.
   */
  static final byte[] LOG = logBytes();

  record Ran(int exit, byte[] out, String err) {
    String text() {
      return new String(out, StandardCharsets.UTF_8);
    }
  }

  static Ran knotless(Map<String, String> env, String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        KnotlessCli.run(
            List.of(argv),
            new CliContext(
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    return new Ran(exit, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  private static byte[] logBytes() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(
        "==> build\n\u001b[32mok\u001b[0m\r\nprogress 10%\rprogress 100%\n"
            .getBytes(StandardCharsets.UTF_8));
    b.writeBytes(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 'x', '\n', (byte) 0xc3});
    b.writeBytes("==> test\nno newline at the end".getBytes(StandardCharsets.UTF_8));
    return b.toByteArray();
  }

  /** A repository record naming {@code runners}; returns its key. */
  static String repo(XrpcClient owner, String name, List<String> runners) throws Exception {
    String key = Tid.next();
    ObjectNode v = Json.object();
    v.put("$type", "dev.knotless.repo");
    v.put("key", key);
    v.put("defaultBranch", "main");
    v.put("createdAt", "2026-11-29T10:00:00.000Z");
    runners.forEach(v.putArray("runners")::add);
    owner.putRecord(owner.did(), "dev.knotless.repo", name, v, Swap.none());
    return key;
  }

  /** Files {@code c} as the runner does: keyed by owner, repository, ref, commit and workflow. */
  static String file(XrpcClient runner, String ownerDid, String key, CheckRecord c)
      throws Exception {
    String rkey =
        Hashes.h(ownerDid)
            + "."
            + key
            + "."
            + Hashes.h(c.ref())
            + "."
            + c.commit()
            + "."
            + c.workflow();
    runner.putRecord(runner.did(), CheckRecord.COLLECTION, rkey, c.toJson(), Swap.none());
    return rkey;
  }

  static XrpcClient login(PdsInstance pds, Account a) throws Exception {
    XrpcClient c = XrpcClient.create(pds.pdsUrl());
    c.login(a.handle(), a.password());
    return c;
  }

  @Test
  void logPrintsTheFiledLogByteForByteAndChecksJsonGivesBackEveryFieldOfTheRecord(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ckown");
    Account runnerAcct = pds.createAccount("ckrun");
    XrpcClient runner = login(pds, runnerAcct);
    String key = repo(login(pds, owner), "site", List.of(runnerAcct.did()));
    String repoUri = "at://" + owner.did() + "/dev.knotless.repo/site";
    BlobRef log = runner.uploadBlob(LOG, "text/plain");
    Instant t0 = Instant.parse("2026-11-29T10:00:00.123Z");
    ObjectNode coverage =
        Json.object()
            .put("$type", "dev.knotless.check#textOutput")
            .put("name", "coverage")
            .put("text", "81%");
    ObjectNode future =
        Json.object()
            .put("$type", "dev.knotless.check#chartOutput")
            .put("name", "timings")
            .put("points", 3);
    CheckRecord failed =
        new CheckRecord(
            repoUri,
            "refs/heads/main",
            "a".repeat(40),
            "b".repeat(40),
            "at://" + owner.did() + "/dev.knotless.pull/3lpull",
            "test",
            CheckStatus.FAILURE,
            t0,
            t0.plusSeconds(2),
            t0.plusSeconds(65),
            List.of(
                new StepResult(
                    "build",
                    StepResult.Status.SUCCESS,
                    t0.plusSeconds(2),
                    t0.plusSeconds(40),
                    null),
                new StepResult(
                    "test",
                    StepResult.Status.FAILURE,
                    t0.plusSeconds(40),
                    t0.plusSeconds(65),
                    "exit 1"),
                new StepResult(
                    "deploy", StepResult.Status.SKIPPED, null, null, "a step before it failed")),
            log,
            List.of(coverage, future),
            "step test failed");
    String failedKey = file(runner, owner.did(), key, failed);
    CheckRecord lint =
        new CheckRecord(
            repoUri,
            "refs/heads/main",
            "a".repeat(40),
            null,
            null,
            "lint",
            CheckStatus.RUNNING,
            t0.plusSeconds(70),
            t0.plusSeconds(71),
            null,
            List.of(),
            null,
            List.of(),
            null);
    file(runner, owner.did(), key, lint);
    Map<String, String> env = env(pds, null, tmp);
    String url = owner.handle() + "/site";

    Ran printed = knotless(env, "log", url, "aaaa.test");
    assertEquals(0, printed.exit(), printed.err());
    assertArrayEquals(LOG, printed.out());

    Ran json = knotless(env, "checks", url, "--json", "--workflow", "test");
    assertEquals(0, json.exit(), json.err());
    JsonNode listed = Json.read(json.out());
    assertEquals(1, listed.size(), json.text());
    JsonNode stored = runner.getRecord(runnerAcct.did(), CheckRecord.COLLECTION, failedKey).value();
    assertEquals(stored, listed.get(0).path("record"));
    // Every field the runner wrote, an output of a kind this version does not know included.
    assertEquals(Json.read(Json.write(failed.toJson())), listed.get(0).path("record"));
    assertEquals(runnerAcct.did(), listed.get(0).path("runner").asText());
    assertEquals(failedKey, listed.get(0).path("rkey").asText());
    assertEquals(
        "at://" + runnerAcct.did() + "/dev.knotless.check/" + failedKey,
        listed.get(0).path("uri").asText());

    Ran table = knotless(env, "checks", url);
    assertEquals(0, table.exit(), table.err());
    List<String> lines = table.text().lines().toList();
    assertEquals(3, lines.size(), table.text());
    assertTrue(
        lines.get(1).startsWith("aaaaaaa.lint") && lines.get(1).contains("running"), table.text());
    assertTrue(
        lines.get(2).startsWith("aaaaaaa.test")
            && lines.get(2).contains("2026-11-29 10:00:02Z")
            && lines.get(2).contains("1m03s")
            && lines.get(2).endsWith("step test failed"),
        table.text());

    Ran one = knotless(env, "check", url, "--ref", "main", "--workflow", "test");
    assertEquals(0, one.exit(), one.err());
    assertTrue(one.text().contains("runner    " + runnerAcct.did()), one.text());
    assertTrue(
        one.text().lines().anyMatch(l -> l.matches("test +failure +25s +exit 1")), one.text());
    assertTrue(one.text().contains("coverage: 81%"), one.text());
    assertTrue(
        one.text().contains("log       " + log.cid() + " (" + LOG.length + " bytes)"), one.text());

    Ran watched = knotless(env, "log", url, failedKey, "--watch");
    assertEquals(1, watched.exit(), watched.err());
    assertArrayEquals(LOG, watched.out());
    assertTrue(watched.err().contains("test at aaaaaaaaaaaa: failure"), watched.err());
  }

  @Test
  void aNameMatchingNoneOrSeveralAMissingRepositoryAndNoChecksEachSaySoWithoutAStackTrace(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ckbad");
    Account runnerAcct = pds.createAccount("ckbdr");
    XrpcClient runner = login(pds, runnerAcct);
    XrpcClient ownerClient = login(pds, owner);
    String key = repo(ownerClient, "site", List.of(runnerAcct.did()));
    repo(ownerClient, "quiet", List.of(runnerAcct.did()));
    repo(ownerClient, "alone", List.of());
    Instant t0 = Instant.parse("2026-11-29T10:00:00Z");
    for (String wf : List.of("test", "lint")) {
      file(
          runner,
          owner.did(),
          key,
          new CheckRecord(
              "at://" + owner.did() + "/dev.knotless.repo/site",
              "refs/heads/main",
              "c".repeat(40),
              null,
              null,
              wf,
              CheckStatus.RUNNING,
              t0,
              t0,
              null,
              List.of(),
              null,
              List.of(),
              null));
    }
    Map<String, String> env = env(pds, null, tmp);
    String url = owner.handle() + "/site";

    Ran several = knotless(env, "check", url, "cccc");
    assertEquals(1, several.exit());
    assertTrue(several.err().contains("cccc matches 2 checks"), several.err());
    assertTrue(
        several.err().contains("ccccccc.lint") && several.err().contains("ccccccc.test"),
        several.err());

    Ran none = knotless(env, "log", url, "dddd");
    assertEquals(1, none.exit());
    assertTrue(
        none.err().contains("no check of knotless://" + owner.handle() + "/site matches dddd"),
        none.err());

    Ran running = knotless(env, "log", url, "cccc.test");
    assertEquals(1, running.exit());
    assertTrue(running.err().contains("is running: its log is uploaded as it ends"), running.err());

    Ran missing = knotless(env, "checks", owner.handle() + "/nope");
    assertEquals(1, missing.exit());
    assertTrue(missing.err().contains("no repository nope"), missing.err());

    Ran quiet = knotless(env, "checks", owner.handle() + "/quiet");
    assertEquals(0, quiet.exit(), quiet.err());
    assertEquals("no checks yet\n", quiet.text());
    Ran quietOne = knotless(env, "check", owner.handle() + "/quiet", "--ref", "main");
    assertEquals(1, quietOne.exit());
    assertTrue(
        quietOne
            .err()
            .contains(
                "no checks of knotless://" + owner.handle() + "/quiet at refs/heads/main yet"),
        quietOne.err());
    Ran alone = knotless(env, "log", owner.handle() + "/alone", "--workflow", "x");
    assertEquals(1, alone.exit());
    assertTrue(alone.err().contains("names no runners"), alone.err());

    Ran zero = knotless(env, "checks", url, "--limit", "0");
    assertEquals(2, zero.exit());
    assertTrue(zero.err().contains("--limit must be 1 or more"), zero.err());
    Ran bogus = knotless(env, "checks", url, "--status", "bogus");
    assertEquals(2, bogus.exit());
    assertTrue(bogus.err().contains("--status bogus is not a check status"), bogus.err());
    for (Ran r : List.of(several, none, running, missing, quietOne, alone, zero, bogus)) {
      assertFalse(r.err().contains("\tat "), r.err());
    }
  }

  @Test
  void aLogPrunedBetweenReadingTheCheckAndFetchingItIsReportedGone(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ckgon");
    Account runnerAcct = pds.createAccount("ckgnr");
    XrpcClient runner = login(pds, runnerAcct);
    String key = repo(login(pds, owner), "site", List.of(runnerAcct.did()));
    Instant t0 = Instant.parse("2026-11-29T10:00:00Z");
    BlobRef log = runner.uploadBlob(LOG, "text/plain");
    String rkey =
        file(
            runner,
            owner.did(),
            key,
            new CheckRecord(
                "at://" + owner.did() + "/dev.knotless.repo/site",
                "refs/heads/main",
                "e".repeat(40),
                null,
                null,
                "test",
                CheckStatus.SUCCESS,
                t0,
                t0,
                t0,
                List.of(),
                log,
                List.of(),
                null));
    Map<String, String> env = env(pds, null, tmp);
    CheckSource source = new CheckSource(KnotlessRepos.fromEnvironment(env), env);
    CheckSource.Repo repo = source.repo(owner.handle() + "/site");
    CheckEntry read = source.checks(repo, null).get(0);
    // Pruned as the runner prunes: the record deleted, and the PDS reaps the blob it named.
    runner.deleteRecord(runnerAcct.did(), CheckRecord.COLLECTION, rkey);
    IOException gone =
        assertThrows(IOException.class, () -> source.log(read, new ByteArrayOutputStream()));
    assertTrue(
        gone.getMessage().contains("is gone from " + runnerAcct.did() + "'s PDS"),
        gone.getMessage());
  }
}
