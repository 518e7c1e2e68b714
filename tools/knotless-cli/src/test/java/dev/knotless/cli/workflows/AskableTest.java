package dev.knotless.cli.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.workflow.WorkflowSet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AskableTest {
  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  final WorkflowSet set =
      WorkflowSet.load(
          Map.of(
              ".knotless/workflows/ci.yml",
                  b("on:\n  push:\n    refs: [main]\nsteps:\n  - run: x\n"),
              ".knotless/workflows/deploy.yml",
                  b(
                      "on:\n  asked:\n    refs: [main]\n    commit: [docs/**]\nenv:\n  TARGET: prod\nsteps:\n  - run: x\n"),
              ".knotless/workflows/pulls.yml", b("on:\n  pull: {}\nsteps:\n  - run: x\n")));

  @Test
  void aWorkflowMayBeAskedForWhereItRunsOnAPushOrItsAskedRefsMatch() {
    assertEquals(
        List.of("ci", "deploy"),
        Askable.at(set, "refs/heads/main").stream().map(w -> w.name()).toList());
    assertEquals(List.of(), Askable.at(set, "refs/heads/topic"));
    String text = Askable.text(set, "refs/heads/main");
    assertEquals(
        List.of(
            "WORKFLOW  RUNS                     FILE                            VARIABLES",
            "ci        push                     .knotless/workflows/ci.yml",
            "deploy    asked only, writes back  .knotless/workflows/deploy.yml  TARGET=prod"),
        text.lines().toList());
    assertEquals(
        "no workflow may be asked for at refs/heads/topic\n",
        Askable.text(set, "refs/heads/topic"));
  }
}
