package dev.knotless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code knotless lint} on files in a repository's layout, against the runner's own load. */
class LintCliTest {
  static final String CI =
      """
      name: ci
      on:
        push:
          refs: [main]
      steps:
        - name: build
          run: make
        - name: test
          run: make test
          timeout: soon
      """;
  static final String BROKEN_YAML = "name: build\non: [push\nsteps:\n  - run: x\n";
  static final String NO_RUN = "on:\n  push: {}\nsteps:\n  - name: a\n    run: a\n  - name: b\n";
  static final String TWIN_A = "name: twin\non:\n  push: {}\nsteps:\n  - run: a\n";
  static final String TWIN_B =
      "{\n  \"name\": \"twin\",\n  \"on\": {\"push\": {}},\n  \"steps\": [{\"run\": \"b\"}]\n}\n";
  static final String GOOD = "on:\n  push: {}\nsteps:\n  - run: echo ok\n";

  @Test
  void eachFaultNamesFileLineAndTheRunnersOwnWordsAndAnyFaultExitsOne(@TempDir Path repo)
      throws Exception {
    Map<String, String> files =
        new TreeMap<>(
            Map.of(
                "ci.yml",
                CI,
                "build.yaml",
                BROKEN_YAML,
                "norun.yml",
                NO_RUN,
                "a.yml",
                TWIN_A,
                "b.json",
                TWIN_B,
                "good.yml",
                GOOD));
    Path dir = repo.resolve(WorkflowSet.DIRECTORY);
    Files.createDirectories(dir);
    Map<String, byte[]> asCommitted = new TreeMap<>();
    for (Map.Entry<String, String> f : files.entrySet()) {
      Files.writeString(dir.resolve(f.getKey()), f.getValue());
      asCommitted.put(
          WorkflowSet.DIRECTORY + f.getKey(), f.getValue().getBytes(StandardCharsets.UTF_8));
    }
    KnotlessCliTest.Ran r = KnotlessCliTest.knotless("lint", dir.toString());
    assertEquals(1, r.exit(), r.out() + r.err());
    List<String> lines = r.out().lines().toList();

    // What the runner files as each error check's note: <repo path>: <field>: <problem>.
    List<WorkflowError> errors = WorkflowSet.load(asCommitted).errors();
    int faults = errors.stream().mapToInt(e -> e.files().size()).sum();
    assertEquals(faults, lines.size(), r.out());
    Map<String, Integer> expectedLine =
        Map.of("ci.yml", 10, "build.yaml", 3, "norun.yml", 6, "a.yml", 1, "b.json", 2);
    for (WorkflowError e : errors) {
      for (String file : e.files()) {
        String name = file.substring(WorkflowSet.DIRECTORY.length());
        String shown = dir.resolve(name) + ":" + expectedLine.get(name) + ": ";
        String note = e.message();
        String rest =
            e.files().size() == 1
                ? note.substring(file.length() + 2)
                : e.field() + ": " + e.problem();
        assertTrue(lines.contains(shown + rest), shown + rest + "\nin\n" + r.out());
      }
    }
    assertTrue(r.out().contains("ci.yml:10: steps[2].timeout: "), r.out());
    assertTrue(r.err().contains("6 files, 5 faults"), r.err());
  }

  @Test
  void goodFilesExitZeroAndAPathThatIsNotThereExitsOneSayingSo(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.yml");
    Files.writeString(good, GOOD);
    KnotlessCliTest.Ran ok = KnotlessCliTest.knotless("lint", good.toString());
    assertEquals(0, ok.exit(), ok.err());
    assertEquals("", ok.out());
    assertTrue(ok.err().contains("1 file, no faults"), ok.err());

    KnotlessCliTest.Ran missing =
        KnotlessCliTest.knotless("lint", dir.resolve("nope.yml").toString());
    assertEquals(1, missing.exit());
    assertTrue(missing.err().contains("nope.yml: no such file or directory"), missing.err());

    Path notes = dir.resolve("notes.txt");
    Files.writeString(notes, "hello");
    KnotlessCliTest.Ran txt = KnotlessCliTest.knotless("lint", notes.toString());
    assertEquals(1, txt.exit());
    assertTrue(txt.out().contains("notes.txt:1: is not a workflow file"), txt.out());
  }
}
