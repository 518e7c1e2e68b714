package dev.knotless.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.testing.Account;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code bin/demo}: the main job end to end on this machine. Starts a reference PDS on 127.0.0.1,
 * makes an owner and a runner account, pushes a sample repository with a workflow through
 * git-remote-knotless, names the runner, starts knotless-run all-in-one, pushes a commit, and
 * prints the check as it goes from queued to success with its log. Stops what it started.
 */
public final class Demo {

  private static final Duration CHECK_DEADLINE = Duration.ofMinutes(3);

  private final Path root;
  private final Path tmp;
  private final PdsInstance pds;
  private final Account owner;
  private final Account runner;

  private Demo(Path root, Path tmp, PdsInstance pds) {
    this.root = root;
    this.tmp = tmp;
    this.pds = pds;
    this.owner = pds.createAccount("owner");
    this.runner = pds.createAccount("runner");
  }

  public static void main(String[] args) throws Exception {
    Path root = Path.of(System.getProperty("knotless.repo.root", ".")).toAbsolutePath().normalize();
    Path tmp = Files.createTempDirectory("knotless-demo-");
    say("starting a reference PDS on 127.0.0.1 (the first run installs it: about 90 s)");
    int code;
    try (PdsInstance pds = PdsInstance.start(PdsOptions.defaults())) {
      say("PDS at " + pds.pdsUrl() + ", PLC at " + pds.plcUrl());
      code = new Demo(root, tmp, pds).run();
    } finally {
      deleteTree(tmp);
    }
    System.exit(code);
  }

  private int run() throws Exception {
    say("owner " + owner.handle() + " (" + owner.did() + "), runner " + runner.handle());
    Path work = tmp.resolve("sample");
    Files.createDirectories(work.resolve(".knotless/workflows"));
    Files.writeString(
        work.resolve(".knotless/workflows/ci.yml"),
        """
        name: ci
        on:
          push:
            refs: [main]
        steps:
          - name: greet
            run: echo "hello from $KNOTLESS_RUN_REPO at $KNOTLESS_RUN_SHA"
          - name: test
            run: sh ./test.sh
        """);
    Files.writeString(
        work.resolve("test.sh"), "echo 'running the tests'\ntest -f README.md\necho ok\n");
    Files.writeString(work.resolve("README.md"), "# sample\n");
    String url = "knotless://" + owner.handle() + "/sample";
    git(work, ownerEnv(), "init", "-q", "-b", "main");
    git(work, ownerEnv(), "add", "-A");
    git(work, ownerEnv(), "commit", "-q", "-m", "first commit");
    say("git push " + url + " main");
    git(work, ownerEnv(), "push", "-q", url, "main");
    say(
        "naming the runner in the repository record: knotless runners "
            + url
            + " add "
            + runner.did());
    command(
        List.of(root.resolve("bin/knotless").toString(), "runners", url, "add", runner.did()),
        ownerEnv());

    Path state = tmp.resolve("state.json");
    Path log = tmp.resolve("knotless-run.log");
    Map<String, String> runnerEnv = new HashMap<>(pds.environment());
    runnerEnv.put("KNOTLESS_IDENTIFIER", runner.handle());
    runnerEnv.put("KNOTLESS_PASSWORD", runner.password());
    runnerEnv.put("KNOTLESS_CACHE_DIR", tmp.resolve("runner-cache").toString());
    String firehose = "ws://" + pds.pdsUrl().getAuthority();
    List<String> cmd = new ArrayList<>(List.of(root.resolve("bin/knotless-run").toString()));
    cmd.addAll(executorFlags());
    cmd.addAll(
        List.of(
            "--firehose",
            firehose,
            "--state",
            state.toString(),
            "--work",
            tmp.resolve("work").toString(),
            "--sweep",
            "30",
            owner.handle() + "/sample"));
    say("starting " + String.join(" ", cmd));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(runnerEnv);
    Process knotlessRun = pb.start();
    try {
      waitForBaseline(state, knotlessRun, log);
      Files.writeString(work.resolve("README.md"), "# sample\n\nA second commit.\n");
      git(work, ownerEnv(), "commit", "-q", "-am", "second commit");
      String sha = new String(gitOut(work, "rev-parse", "HEAD"), StandardCharsets.UTF_8).strip();
      say("git push (second commit " + sha.substring(0, 12) + ")");
      git(work, ownerEnv(), "push", "-q", url, "main");
      return followCheck(sha, knotlessRun, log);
    } finally {
      say("stopping knotless-run (SIGTERM)");
      knotlessRun.destroy();
      knotlessRun.waitFor();
    }
  }

  /**
   * Docker when a daemon answers, with the local busybox image (made from Debian's package, since
   * nothing is pulled here); the shell executor otherwise. Says which.
   */
  private List<String> executorFlags() throws Exception {
    boolean answers;
    try {
      Process p =
          new ProcessBuilder("docker", "version", "--format", "{{.Server.Version}}")
              .redirectErrorStream(true)
              .start();
      p.getInputStream().readAllBytes();
      answers = p.waitFor() == 0;
    } catch (IOException noClient) {
      answers = false;
    }
    if (!answers) {
      say("no docker daemon answers here: using the shell executor (steps run as this user)");
      return List.of("--executor", "shell");
    }
    Process images =
        new ProcessBuilder(root.resolve("testing/docker/images.sh").toString())
            .redirectErrorStream(true)
            .start();
    String made = new String(images.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (images.waitFor() != 0) {
      say("could not make the local image, so using the shell executor: " + made.strip());
      return List.of("--executor", "shell");
    }
    say(
        "a docker daemon answers: using the docker executor, each run in a container of knotless-test/busybox:1");
    List<String> flags =
        new ArrayList<>(List.of("--executor", "docker", "--image", LocalDocker.BUSYBOX));
    Optional<String> gvisor = LocalDocker.gvisorRuntime();
    if (gvisor.isPresent()) {
      // The sample's owner is not named with --trust: its code is others' code to this runner.
      say("the daemon has gVisor: others' code runs under --runtime " + gvisor.get());
      flags.addAll(List.of("--runtime", gvisor.get()));
    } else {
      say("the daemon has no runsc runtime: runs go to its default runtime, with no sandbox");
    }
    return flags;
  }

  private void waitForBaseline(Path state, Process p, Path log) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (Instant.now().isBefore(deadline)) {
      if (!p.isAlive()) {
        throw new IllegalStateException("knotless-run exited early:\n" + Files.readString(log));
      }
      if (Files.exists(state) && Files.readString(state).contains(owner.did())) {
        say("knotless-run is watching (its first pass took the repository as it was: no runs)");
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "knotless-run never finished its first pass:\n" + Files.readString(log));
  }

  private int followCheck(String sha, Process p, Path log) throws Exception {
    XrpcClient reader = XrpcClient.create(pds.pdsUrl());
    Instant deadline = Instant.now().plus(CHECK_DEADLINE);
    Map<String, String> seen = new LinkedHashMap<>();
    while (Instant.now().isBefore(deadline)) {
      for (Record r : checks(reader)) {
        JsonNode v = r.value();
        if (!sha.equals(v.path("commit").asText())) {
          continue;
        }
        String status = v.path("status").asText();
        if (!seen.containsKey(r.rkey()) && !status.equals("queued")) {
          // The runner can file a check queued and then running within one poll: the record still
          // says when it was filed, so the queued step is shown from it rather than skipped.
          say(
              "check "
                  + v.path("workflow").asText()
                  + " @ "
                  + sha.substring(0, 12)
                  + ": queued (filed "
                  + v.path("createdAt").asText()
                  + ", started "
                  + v.path("startedAt").asText()
                  + ")");
        }
        if (!status.equals(seen.put(r.rkey(), status))) {
          say(
              "check "
                  + v.path("workflow").asText()
                  + " @ "
                  + sha.substring(0, 12)
                  + ": "
                  + status);
        }
        if (List.of("success", "failure", "error", "cancelled").contains(status)) {
          printCheck(reader, r);
          return status.equals("success") ? 0 : 1;
        }
      }
      if (!p.isAlive()) {
        throw new IllegalStateException("knotless-run exited:\n" + Files.readString(log));
      }
      Thread.sleep(50);
    }
    System.out.println(Files.readString(log));
    throw new IllegalStateException(
        "no check ended within " + CHECK_DEADLINE.toMinutes() + " minutes");
  }

  private List<Record> checks(XrpcClient reader) throws XrpcException {
    List<Record> out = new ArrayList<>();
    String cursor = null;
    do {
      RecordPage page = reader.listRecords(runner.did(), "dev.knotless.check", 100, cursor, false);
      out.addAll(page.records());
      cursor = page.records().size() < 100 ? null : page.cursor();
    } while (cursor != null);
    return out;
  }

  private void printCheck(XrpcClient reader, Record r) throws XrpcException {
    System.out.println();
    System.out.println("at://" + runner.did() + "/dev.knotless.check/" + r.rkey());
    System.out.println(r.value().toPrettyString());
    JsonNode link = r.value().path("log").path("ref").path("$link");
    if (link.isTextual()) {
      System.out.println("---- log ----");
      String text = new String(reader.getBlob(runner.did(), link.asText()), StandardCharsets.UTF_8);
      System.out.print(text);
      System.out.println("-------------");
      say("the run's container got " + LocalDocker.runtimeOfRun(text));
    }
  }

  private Map<String, String> ownerEnv() {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", owner.handle());
    env.put("KNOTLESS_PASSWORD", owner.password());
    env.put("KNOTLESS_CACHE_DIR", tmp.resolve("owner-cache").toString());
    env.put("KNOTLESS_COMPACT", "off");
    // Two pushes, then the demo stops everything it started: a resident helper would outlive it.
    env.put("KNOTLESS_HELPER_DAEMON", "off");
    env.put("PATH", root.resolve("bin") + ":" + System.getenv("PATH"));
    env.put("GIT_AUTHOR_NAME", "Demo Owner");
    env.put("GIT_AUTHOR_EMAIL", "owner@example.test");
    env.put("GIT_COMMITTER_NAME", "Demo Owner");
    env.put("GIT_COMMITTER_EMAIL", "owner@example.test");
    return env;
  }

  private static void git(Path dir, Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    command(cmd, env);
  }

  private static byte[] gitOut(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          String.join(" ", cmd) + " failed: " + new String(out, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void command(List<String> cmd, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          cmd.get(0) + " " + cmd.get(1) + "… failed:\n" + new String(out, StandardCharsets.UTF_8));
    }
  }

  private static void say(String s) {
    System.out.println("==> " + s);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
