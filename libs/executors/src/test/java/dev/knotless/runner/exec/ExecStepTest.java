package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.workflow.Step;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExecStepTest {

  private static final String MAIN = "refs/heads/main";

  private static Step own(String name) {
    return new Step(name, "true", List.of(), 0);
  }

  private static Step shared(String name, List<String> sees) {
    return new Step(name, "true", List.of(), 0, null, List.of(), sees);
  }

  private static List<Boolean> sweeps(List<ExecStep> steps) {
    return steps.stream().map(ExecStep::endLeftovers).toList();
  }

  @Test
  void aSharedStepGivenNoSecretIsSweptWhenALaterStepIsGivenOne() {
    List<ExecStep> steps =
        ExecStep.forRun(
            List.of(shared("lint / run", List.of()), own("deploy")), MAIN, Set.of("TOKEN"), true);

    assertEquals(List.of(true, true), sweeps(steps));
    assertEquals(Set.of("TOKEN"), steps.get(0).withheld());
    assertEquals(Set.of(), steps.get(1).withheld());
  }

  @Test
  void stepsAfterTheLastOneGivenSecretsAndNotGivenAnyAreNotSwept() {
    List<ExecStep> steps =
        ExecStep.forRun(
            List.of(
                shared("setup / run", List.of()),
                own("deploy"),
                shared("notify / a", List.of()),
                shared("notify / b", List.of())),
            MAIN,
            Set.of("TOKEN"),
            true);

    assertEquals(List.of(true, true, false, false), sweeps(steps));
  }

  @Test
  void aStepThatDoesNotRunDoesNotMakeEarlierOnesSwept() {
    Step later =
        new Step(
            "deploy",
            "true",
            List.of(dev.knotless.runner.workflow.Glob.ref("refs/heads/release")),
            0);
    List<ExecStep> steps =
        ExecStep.forRun(
            List.of(shared("lint / run", List.of()), later), MAIN, Set.of("TOKEN"), true);

    assertEquals(List.of(false, false), sweeps(steps));
  }

  @Test
  void noStepIsSweptWithoutSharedStepsOrWithoutSecrets() {
    assertEquals(
        List.of(false, false),
        sweeps(ExecStep.forRun(List.of(own("a"), own("b")), MAIN, Set.of("TOKEN"), false)));
    assertEquals(
        List.of(false, false),
        sweeps(
            ExecStep.forRun(
                List.of(shared("a / run", List.of()), own("b")), MAIN, Set.of(), true)));
  }
}
