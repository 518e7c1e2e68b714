package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.OutputsDir;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.runner.workflow.Step;
import dev.knotless.testing.LocalDocker;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The docker executor under the harness's two runtimes, gVisor's runsc ({@link
 * LocalDocker#SANDBOX_RUNTIME}) and runc ({@link LocalDocker#TRUSTED_RUNTIME}): that each run gets
 * the kernel its code calls for, and that what a step leaves running cannot read a later step's
 * secrets under either.
 */
class DockerSandboxIT {

  private static final String SECRET_NAME = "TOKEN";

  private DockerFixture f;

  @BeforeEach
  void start() throws Exception {
    f = DockerFixture.create();
  }

  @AfterEach
  void nothingOfTheRunIsLeft() throws Exception {
    try {
      assertEquals(List.of(), f.containers(), "a container of the run was left behind");
    } finally {
      f.close();
    }
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  private static Step own(String name, String run) {
    return new Step(name, run, List.of(), 0);
  }

  private static Step shared(String name, String run, List<String> sees) {
    return new Step(name, run, List.of(), 0, null, List.of(), sees);
  }

  /** A run of {@code steps}, a workflow with shared steps, granted {@link #SECRET_NAME}. */
  private RunSpec withSecret(String secret, Step... steps) {
    List<ExecStep> planned =
        ExecStep.forRun(List.of(steps), "refs/heads/main", Set.of(SECRET_NAME), true);
    return RunSpec.of(f.repo.mirror, f.repo.commit, planned)
        .withEnv(Map.of(SECRET_NAME, secret, "PLAIN", "visible"))
        .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret))));
  }

  @Test
  void aSandboxedRunSeesGvisorsKernelAndATrustedRunDoesNot() throws Exception {
    DockerSettings s =
        f.settings().withRuntimes(LocalDocker.SANDBOX_RUNTIME, LocalDocker.TRUSTED_RUNTIME);
    // /proc/version too: under runc dmesg is most often refused, which alone would prove nothing.
    RunSpec spec = f.spec(step("kernel", "dmesg 2>&1 | head -5; cat /proc/version"));
    try (DockerExecutor executor = f.executor(s)) {
      RunResult sandboxed = executor.run(spec, new RunCancellation());
      RunResult trusted = executor.run(spec.withTrustedCode(true), new RunCancellation());

      assertInstanceOf(RunOutcome.Passed.class, sandboxed.outcome(), log(sandboxed));
      assertTrue(log(sandboxed).contains(LocalDocker.GVISOR_BANNER), log(sandboxed));
      assertInstanceOf(RunOutcome.Passed.class, trusted.outcome(), log(trusted));
      assertFalse(log(trusted).contains(LocalDocker.GVISOR_BANNER), log(trusted));
      String host = System.getProperty("os.version");
      assertTrue(log(trusted).contains("Linux version " + host), host + ": " + log(trusted));
      assertFalse(log(sandboxed).contains("Linux version " + host), log(sandboxed));
    }
  }

  @Test
  void aWorkflowWithASharedStepAndASecretPassesUnderGvisor() throws Exception {
    String secret = "shared-" + Long.toHexString(System.nanoTime());
    RunSpec spec =
        withSecret(
            secret,
            shared("tools / show", "echo \"shared token=${TOKEN:+set}\"", List.of(SECRET_NAME)),
            own("after", "echo \"after token=${TOKEN:+set}\""));
    try (DockerExecutor executor =
        f.executor(f.settings().withRuntimes(LocalDocker.SANDBOX_RUNTIME, null))) {
      RunResult r = executor.run(spec, new RunCancellation());

      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
      assertTrue(log(r).contains("runtime " + LocalDocker.SANDBOX_RUNTIME), log(r));
      assertTrue(log(r).contains("shared token=set\n"), log(r));
      assertTrue(log(r).contains("after token=set\n"), log(r));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {LocalDocker.SANDBOX_RUNTIME, LocalDocker.TRUSTED_RUNTIME})
  void whatASharedStepGivenNoSecretLeavesIsGoneBeforeALaterStepIsGivenOne(String runtime)
      throws Exception {
    String secret = "later-" + Long.toHexString(System.nanoTime());
    // Writes every TOKEN it finds in any process's environment, and reversed, so masking the log
    // could not hide it.
    String steal =
        "for e in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $e 2>/dev/null | grep '^TOKEN='"
            + " | tee -a /work/stolen.txt | rev >> \"$KNOTLESS_RUN_OUTPUTS/stolen.txt\"; done";
    String thief =
        // Not vacuous: a process here can read another's environment, its parent's.
        "if tr '\\0' '\\n' < /proc/$$/environ | grep -q '^PLAIN=visible$'; then"
            + " echo environ readable; fi; "
            + "(while :; do "
            + steal
            + "; sleep 0.05; done) >/dev/null 2>&1 &"
            + " echo $! > /work/thief.pid";
    String later =
        // A zombie not reaped yet is as dead as a thief can be.
        "alive() { [ -e /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status; };"
            + " t=$(cat /work/thief.pid); i=0;"
            // Were the thief alive, it gets its second to find this step's TOKEN.
            + " while alive $t && [ ! -s /work/stolen.txt ] && [ $i -lt 20 ]; do"
            + " sleep 0.05; i=$((i + 1)); done;"
            + " if alive $t; then echo thief alive; else echo thief gone; fi;"
            + " cat /work/stolen.txt 2>/dev/null | rev; echo \"later token=${TOKEN:+set}\"";
    RunSpec spec = withSecret(secret, shared("lint / run", thief, List.of()), own("deploy", later));
    OutputsDir seen = new OutputsDir();
    try (DockerExecutor executor = f.executor(f.settings().withRuntimes(runtime, null))) {
      RunResult r = executor.run(spec, new RunCancellation(), RunListener.NONE, seen);

      String log = log(r);
      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log);
      assertTrue(log.contains("runtime " + runtime), log);
      assertTrue(log.contains("environ readable"), log);
      String first = log.substring(log.indexOf("==> lint / run"), log.indexOf("==> deploy"));
      assertTrue(
          Pattern.compile("ended [1-9][0-9]* processes the step left").matcher(first).find(), log);
      assertTrue(log.contains("thief gone\n"), log);
      assertTrue(log.contains("later token=set\n"), log);
      String reversed = new StringBuilder(secret).reverse().toString();
      assertFalse(log.contains(secret) || log.contains(reversed), log);
      seen.all()
          .forEach(
              (name, text) ->
                  assertFalse(
                      text.contains(secret) || text.contains(reversed),
                      name + " holds the secret: " + text));
    }
  }
}
