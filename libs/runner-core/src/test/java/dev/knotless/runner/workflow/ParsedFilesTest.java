package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParsedFilesTest {

  private final List<String> parsed = new ArrayList<>();

  private Object parse(String path, byte[] content) {
    parsed.add(path + ":" + new String(content, StandardCharsets.UTF_8));
    return new Object();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aFileOfTheSamePathAndBytesIsParsedOnce() {
    ParsedFiles files = new ParsedFiles(1 << 20);
    Object first = files.get("ci.yml", bytes("steps: []"), this::parse);
    Object again = files.get("ci.yml", bytes("steps: []"), this::parse);
    assertSame(first, again);
    assertEquals(List.of("ci.yml:steps: []"), parsed);
  }

  @Test
  void otherBytesOrAnotherPathAreParsedAgain() {
    ParsedFiles files = new ParsedFiles(1 << 20);
    Object a = files.get("ci.yml", bytes("steps: []"), this::parse);
    Object changed = files.get("ci.yml", bytes("steps: [ ]"), this::parse);
    // The file's name is the workflow's name when it gives none: the path is part of the key.
    Object moved = files.get("deploy.yml", bytes("steps: []"), this::parse);
    assertNotSame(a, changed);
    assertNotSame(a, moved);
    assertEquals(3, parsed.size());
  }

  @Test
  void theLeastRecentlyUsedGoFirstOnceTheBytesKeptPassTheBound() {
    ParsedFiles files = new ParsedFiles(10);
    files.get("a.yml", bytes("aaaa"), this::parse);
    files.get("b.yml", bytes("bbbb"), this::parse);
    files.get("a.yml", bytes("aaaa"), this::parse); // a is now the more recent
    files.get("c.yml", bytes("cccc"), this::parse); // 12 bytes: b goes
    assertEquals(2, files.size());
    files.get("a.yml", bytes("aaaa"), this::parse);
    files.get("b.yml", bytes("bbbb"), this::parse);
    assertEquals(List.of("a.yml:aaaa", "b.yml:bbbb", "c.yml:cccc", "b.yml:bbbb"), parsed);
  }

  @Test
  void aFileOverTheBoundIsParsedEveryTimeAndKeepsNothingOut() {
    ParsedFiles files = new ParsedFiles(4);
    files.get("a.yml", bytes("aaaa"), this::parse);
    files.get("big.yml", bytes("bigger"), this::parse);
    files.get("big.yml", bytes("bigger"), this::parse);
    files.get("a.yml", bytes("aaaa"), this::parse);
    assertEquals(List.of("a.yml:aaaa", "big.yml:bigger", "big.yml:bigger"), parsed);
  }

  @Test
  void aWorkflowSetLoadedAgainIsTheSameAndAnErrorStaysAnError() {
    Map<String, byte[]> files =
        Map.of(
            WorkflowSetTest.DIR + "ci.yml",
            bytes("on: {push: {}}\nsteps: [{name: s, run: 'true'}]\n"),
            WorkflowSetTest.DIR + "bad.yml",
            bytes("steps: 3\n"));
    WorkflowSet first = WorkflowSet.load(files);
    WorkflowSet again = WorkflowSet.load(files);
    assertEquals(first, again);
    assertSame(first.workflows().get(0), again.workflows().get(0));
    assertEquals(1, again.errors().size());
    assertEquals("bad", again.errors().get(0).name());
    assertEquals(first.errors().get(0).problem(), again.errors().get(0).problem());
  }
}
