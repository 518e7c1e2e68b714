package dev.knotless.cli;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Json;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.ToolRun;
import dev.knotless.testing.infra.ToolRun.Ran;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code knotless workflows} on a repository pushed to the reference PDS. */
@WithPds
class WorkflowsIT {
  static final String CI =
      "name: test\non:\n  push:\n    refs: [main]\nenv:\n  LEVEL: quick\nsteps:\n  - run: make test\n";
  static final String SCENARIOS =
      "name: scenarios\non:\n  asked:\n    refs: [main, release/*]\nenv:\n  SUITE: all\n  SEED: \"1\"\nsteps:\n  - run: ./scenarios\n";
  static final String BROKEN = "name: broken\non: {}\nsteps: []\n";

  private static Ran knotless(Map<String, String> env, String... argv) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(argv), ctx));
  }

  @Test
  void listsWhatMayBeAskedForAtTheRefWithItsVariablesAndNamesWhatDoesNotLoad(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("wfown"), pds.pdsUrl(), "app", tmp.resolve("o"));
    String main =
        repo.commit(
            Map.of(
                ".knotless/workflows/ci.yml", CI,
                ".knotless/workflows/scenarios.yml", SCENARIOS,
                ".knotless/workflows/broken.yml", BROKEN));
    repo.push("main");
    repo.git("checkout", "-q", "-b", "topic");
    repo.push("topic");
    Map<String, String> env = env(pds, null, tmp.resolve("reader"));

    Ran onMain = knotless(env, "workflows", repo.label());
    assertEquals(0, onMain.exit(), onMain.err());
    List<String> lines = onMain.out().lines().toList();
    assertEquals("refs/heads/main at " + main, lines.get(0));
    assertTrue(lines.get(1).startsWith("WORKFLOW"), onMain.out());
    assertTrue(
        lines.stream()
            .anyMatch(l -> l.matches("test +push +\\.knotless/workflows/ci\\.yml +LEVEL=quick")),
        onMain.out());
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.matches(
                        "scenarios +asked only +\\.knotless/workflows/scenarios\\.yml +SUITE=all SEED=1")),
        onMain.out());
    assertTrue(
        onMain.out().contains("does not load: .knotless/workflows/broken.yml: "), onMain.out());

    // At topic neither runs on a push nor is asked for.
    Ran onTopic = knotless(env, "workflows", repo.label(), "--ref", "topic", "--json");
    assertEquals(0, onTopic.exit(), onTopic.err());
    JsonNode j = Json.read(onTopic.out());
    assertEquals("refs/heads/topic", j.path("ref").asText());
    assertEquals(0, j.path("workflows").size(), onTopic.out());
    assertEquals(1, j.path("errors").size(), onTopic.out());

    Ran gone = knotless(env, "workflows", repo.label(), "--ref", "nope");
    assertEquals(1, gone.exit());
    assertTrue(gone.err().contains("has no ref refs/heads/nope"), gone.err());
  }
}
