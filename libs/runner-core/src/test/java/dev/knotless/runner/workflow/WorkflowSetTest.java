package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkflowSetTest {

  static final String DIR = ".knotless/workflows/";

  static WorkflowSet load(String... pathsAndContents) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < pathsAndContents.length; i += 2) {
      files.put(pathsAndContents[i], pathsAndContents[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return WorkflowSet.load(files);
  }

  static WorkflowError onlyError(String file, String content) {
    WorkflowSet set = load(DIR + file, content);
    assertEquals(List.of(), set.workflows(), "expected " + file + " to fail");
    assertEquals(1, set.errors().size());
    return set.errors().get(0);
  }

  @Test
  void aFullYamlWorkflowParsesWithEveryField() {
    WorkflowSet set =
        load(
            DIR + "deploy.yml",
            """
            name: deploy site
            on:
              push:
                refs: [main]
                paths: ["site/**", "deploy.sh"]
              pull:
                base: main
              asked:
                refs: ["release/*"]
                commit: ["docs/*.md"]
            image: node:22
            env:
              MODE: production
              PORT: 8080
            secrets: [DEPLOY_TOKEN]
            cache: [/root/.npm]
            superseded: finish
            runners: [did:plc:abc123]
            queue: first
            steps:
              - name: build
                run: npm ci && npm run build
              - name: ship
                run: ./deploy.sh
                on: {refs: [main]}
                timeout: 600
            """);
    assertEquals(List.of(), set.errors());
    Workflow w = set.workflow("deploy site").orElseThrow();
    assertEquals(DIR + "deploy.yml", w.file());
    assertEquals("node:22", w.image());
    assertEquals(Map.of("MODE", "production", "PORT", "8080"), w.env());
    assertEquals(List.of("DEPLOY_TOKEN"), w.secrets());
    assertEquals(List.of("/root/.npm"), w.cache());
    assertEquals(Superseded.FINISH, w.superseded());
    assertEquals(List.of("did:plc:abc123"), w.runners());
    assertTrue(w.preflight());
    assertTrue(w.runsOnPush("refs/heads/main"));
    assertFalse(w.runsOnPush("refs/heads/dev"));
    assertTrue(w.runsOnPullInto("refs/heads/main"));
    assertTrue(w.asked().writesBack());
    assertEquals(600, w.steps().get(1).timeoutSeconds());
    assertEquals(0, w.steps().get(0).timeoutSeconds());
    assertTrue(w.runsOnRunner("did:plc:abc123"));
    assertFalse(w.runsOnRunner("did:plc:other"));
  }

  @Test
  void theNameDefaultsToTheFileNameAndJsonIsAccepted() {
    WorkflowSet set =
        load(
            DIR + "ci.json",
            "{\"on\":{\"push\":{}},\"steps\":[{\"run\":\"make test\"}]}",
            DIR + "lint.yaml",
            "on:\n  push:\nsteps:\n  - run: make lint\n");
    assertEquals(List.of("ci", "lint"), set.names());
    Workflow ci = set.workflow("ci").orElseThrow();
    assertEquals("step 1", ci.steps().get(0).name());
    assertTrue(ci.runsOnPush("refs/tags/v1"), "a push trigger without refs runs on every ref");
    assertEquals(Superseded.CANCEL, ci.superseded());
  }

  @Test
  void filesOutsideTheDirectoryOrWithOtherExtensionsArePassedOver() {
    WorkflowSet set =
        load(
            DIR + "README.md",
            "not a workflow",
            DIR + "shared/x.yml",
            "junk: [",
            ".knotless/other.yml",
            "junk: [",
            DIR + "ok.yml",
            "on: {push: {}}\nsteps: [{run: 'true'}]\n");
    assertEquals(List.of("ok"), set.names());
  }

  @Test
  void badYamlNamesTheFileAndTheLine() {
    WorkflowError e = onlyError("ci.yml", "on:\n  push: [\nsteps:\n");
    assertEquals("ci", e.name());
    assertTrue(e.message().startsWith(DIR + "ci.yml: is not valid YAML at line"), e.message());
  }

  @Test
  void eachBadFieldIsNamedInTheError() {
    String ok = "on: {push: {}}\nsteps: [{run: make}]\n";
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("on: {push: {}}\nstep: []\n", "step: unknown key");
    cases.put("on: {push: {}}\n", "steps: is missing");
    cases.put("on: {push: {}}\nsteps: []\n", "steps: is empty");
    cases.put("on: {push: {}}\nsteps: [{name: x}]\n", "steps[1].run: is missing");
    cases.put("on: {push: {}}\nsteps: [{run: a}, {run: b, timeout: ten}]\n", "steps[2].timeout");
    cases.put("on: {push: {}}\nsteps: [{run: a, timeout: 0}]\n", "steps[1].timeout");
    cases.put("on: {push: {}}\nsteps: [{run: a, timeout: 1.5}]\n", "steps[1].timeout");
    cases.put("on: {push: {}}\nsteps: [{run: a}, {run: b, name: step 1}]\n", "steps[2].name");
    cases.put("on: {push: {}}\nsuperseded: never\nsteps: [{run: a}]\n", "superseded: must be");
    cases.put("on: {push: {}}\nenv: {1BAD: x}\nsteps: [{run: a}]\n", "env.1BAD");
    cases.put("on: {push: {}}\nenv: {KNOTLESS_RUN_REF: x}\nsteps: [{run: a}]\n", "reserved");
    cases.put("on: {push: {}}\nenv: {A: [1]}\nsteps: [{run: a}]\n", "env.A: must be a string");
    cases.put("on: {push: {}}\nsecrets: T\nsteps: [{run: a}]\n", "secrets: must be a list");
    cases.put("on: {push: {}}\nsecrets: [T]\nenv: {T: x}\nsteps: [{run: a}]\n", "env.T");
    cases.put("on: {push: {refs: [\"[ab\"]}}\nsteps: [{run: a}]\n", "on.push.refs[1]");
    cases.put("on: {push: {branches: [main]}}\nsteps: [{run: a}]\n", "on.push.branches");
    cases.put("on: {}\nsteps: [{run: a}]\n", "on: names no trigger");
    cases.put("steps: [{run: a}]\n", "on: is missing");
    cases.put(
        "on: {push: {}}\nimage: \"x$(id);y\"\nsteps: [{run: a}]\n",
        "image: \"x$(id);y\" holds '$', '(', ')' and ';', which no image name may");
    cases.put(
        "on: {push: {}}\nimage: Alpine\nsteps: [{run: a}]\n", "image: \"Alpine\" has capitals");
    cases.put("on: {push: {}}\nrunners: [alice]\nsteps: [{run: a}]\n", "runners[1]");
    cases.put("on: {push: {}}\nname: 7\nsteps: [{run: a}]\n", "name: must be a string");
    cases.put("on: {push: {}}\non: {pull: {}}\nsteps: [{run: a}]\n", "not valid YAML");
    cases.put("- a\n- b\n", "must be a mapping");
    cases.put("", "is empty");
    cases.put(ok + "---\n" + ok, "more than one document");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      WorkflowError e = onlyError("w.yml", c.getKey());
      assertTrue(e.message().startsWith(DIR + "w.yml: "), "names the file: " + e.message());
      assertTrue(
          e.message().contains(c.getValue()),
          "for\n" + c.getKey() + "expected " + c.getValue() + " in: " + e.message());
    }
  }

  @Test
  void anErrorIsFiledUnderTheNameTheFileGivesWhenItCouldBeRead() {
    WorkflowError e = onlyError("w.yml", "name: tests\non: {push: {}}\nsteps: []\n");
    assertEquals("tests", e.name());
  }

  @Test
  void twoWorkflowsSharingANameAreBothErrorsNamingBothFiles() {
    WorkflowSet set =
        load(
            DIR + "a.yml", "name: ci\non: {push: {}}\nsteps: [{run: a}]\n",
            DIR + "b.json", "{\"name\":\"ci\",\"on\":{\"push\":{}},\"steps\":[{\"run\":\"b\"}]}",
            DIR + "c.yml", "on: {push: {}}\nsteps: [{run: c}]\n");
    assertEquals(List.of("c"), set.workflows().stream().map(Workflow::name).toList());
    WorkflowError e = set.error("ci").orElseThrow();
    assertEquals(List.of(DIR + "a.yml", DIR + "b.json"), e.files());
    assertTrue(e.message().contains(DIR + "a.yml and " + DIR + "b.json"), e.message());
  }

  @Test
  void aBrokenFileWhoseStemIsAnotherWorkflowsNameClashesToo() {
    WorkflowSet set =
        load(
            DIR + "ci.yml", "on: [",
            DIR + "other.yml", "name: ci\non: {push: {}}\nsteps: [{run: a}]\n");
    assertEquals(List.of(), set.workflows());
    assertEquals(Set.of("ci"), Set.copyOf(set.names()));
  }

  @Test
  void pathsDecideOnlyWhenTheChangeSetIsKnown() {
    Workflow w =
        load(DIR + "docs.yml", "on: {push: {paths: ['docs/**']}}\nsteps: [{run: a}]\n")
            .workflow("docs")
            .orElseThrow();
    assertTrue(w.pathsMatch(null), "an unknown change set skips nothing");
    assertTrue(w.pathsMatch(List.of("src/a.c", "docs/x/y.md")));
    assertFalse(w.pathsMatch(List.of("src/a.c")));
    assertFalse(w.pathsMatch(List.of()));
    assertTrue(w.pathsSkipNote().contains("docs/**"));
  }

  @Test
  void aWorkflowOnlyAskedForRunsByNameAndNoOtherWay() {
    WorkflowSet set =
        load(
            DIR + "suite.yml", "on: {asked: {refs: [main]}}\nsteps: [{run: a}]\n",
            DIR + "ci.yml", "on: {push: {refs: ['feature/*']}}\nsteps: [{run: a}]\n");
    Workflow suite = set.workflow("suite").orElseThrow();
    assertFalse(suite.runsOnPush("refs/heads/main"));
    assertFalse(suite.runsOnPullInto("refs/heads/main"));
    assertTrue(suite.mayRunByName("refs/heads/main"));
    assertFalse(suite.mayRunByName("refs/heads/dev"));
    Workflow ci = set.workflow("ci").orElseThrow();
    assertTrue(ci.mayRunByName("refs/heads/feature/x"), "a push workflow may be asked for");
    assertFalse(ci.mayRunByName("refs/heads/main"));
    assertEquals(List.of(ci), set.onPush("refs/heads/feature/x"));
  }

  @Test
  void aStepLimitedToRefsRunsOnlyThereAndNeverInAPullRun() {
    Workflow w =
        load(
                DIR + "d.yml",
                "on: {push: {}, pull: {}}\nsteps:\n  - run: a\n  - run: b\n    on: {refs: main}\n")
            .workflow("d")
            .orElseThrow();
    Step deploy = w.steps().get(1);
    assertTrue(deploy.runsAt("refs/heads/main"));
    assertFalse(deploy.runsAt("refs/heads/dev"));
    assertFalse(deploy.runsAt(null));
    assertTrue(w.steps().get(0).runsAt(null));
    assertTrue(w.leavesOutStepsAt(null));
    assertFalse(w.leavesOutStepsAt("refs/heads/main"));
    assertTrue(deploy.leftOutNote("refs/heads/dev").contains("refs/heads/dev"));
  }
}
