package dev.knotless.runner.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.schedule.Admission;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.workflow.Superseded;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmittedSpecTest {

  private static final RunSpec PLANNED =
      RunSpec.of(
              Path.of("/mirror"),
              "a".repeat(40),
              List.of(ExecStep.run("build", "make", Duration.ZERO)))
          .withPreamble(List.of("==> DEPLOY_KEY is not granted to alice/app at refs/heads/main"));

  private static Admission admitted(RunClass runClass, boolean privateRepo, boolean past) {
    RunRequest r =
        new RunRequest(
            "run-1",
            "did:plc:alice",
            "did:plc:alice/3kapp",
            "refs/heads/main",
            SubjectKind.REF,
            "ci",
            "a".repeat(40),
            runClass,
            Superseded.CANCEL,
            privateRepo);
    return new Admission(r, Duration.ofSeconds(192), past);
  }

  @Test
  void aRunPastTheAllowanceBeginsItsLogSayingSoAndHowLongItWaited() {
    RunSpec spec = AdmittedSpec.apply(PLANNED, admitted(RunClass.MAIN, false, true));
    assertEquals(
        List.of(
            "==> this owner is past the allowance of this runner, so their runs go one at a time:"
                + " this run waited 3 min 12 s for a job",
            "==> DEPLOY_KEY is not granted to alice/app at refs/heads/main"),
        spec.preamble());
  }

  @Test
  void aPrivateRunPastItsAllowanceNamesThePrivateAllowance() {
    RunSpec spec = AdmittedSpec.apply(PLANNED, admitted(RunClass.OTHER, true, true));
    assertTrue(
        spec.preamble().get(0).contains("past the allowance for private repositories"),
        spec.preamble().get(0));
  }

  @Test
  void aRunWithinTheAllowanceKeepsThePlannersLinesAlone() {
    RunSpec spec = AdmittedSpec.apply(PLANNED, admitted(RunClass.MAIN, false, false));
    assertEquals(PLANNED.preamble(), spec.preamble());
  }

  @Test
  void mainsRunsKeepTheFullCpuWeightAndEveryOtherClassRunsTenLower() {
    assertEquals(0, AdmittedSpec.apply(PLANNED, admitted(RunClass.MAIN, false, false)).niceness());
    for (RunClass c : List.of(RunClass.OTHER, RunClass.LATER, RunClass.ASKED)) {
      assertEquals(10, AdmittedSpec.apply(PLANNED, admitted(c, false, false)).niceness(), c.tag());
    }
  }

  @Test
  void waitsReadAsSecondsMinutesOrHours() {
    assertEquals("0 s", AdmittedSpec.human(Duration.ZERO));
    assertEquals("59 s", AdmittedSpec.human(Duration.ofMillis(59_999)));
    assertEquals("1 min 00 s", AdmittedSpec.human(Duration.ofSeconds(60)));
    assertEquals("2 h 05 min", AdmittedSpec.human(Duration.ofMinutes(125).plusSeconds(40)));
  }
}
