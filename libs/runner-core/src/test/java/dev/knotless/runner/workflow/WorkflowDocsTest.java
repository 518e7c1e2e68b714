package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps docs/workflows.md and docs/workflow.schema.json true to the parser. */
class WorkflowDocsTest {

  private static final Pattern EXAMPLE =
      Pattern.compile(
          "<!-- (example|invalid): (\\S+) -->\\s*```(?:yaml|json)\\n(.*?)```", Pattern.DOTALL);

  static Path docs() {
    String root = System.getProperty("knotless.repo.root");
    Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/workflows.md"))) {
      dir = dir.getParent();
    }
    assertTrue(dir != null, "docs/workflows.md not found above " + Path.of("").toAbsolutePath());
    return dir.resolve("docs");
  }

  @Test
  void everyExampleInTheWorkflowDocsParsesAndEveryCounterExampleFails() throws IOException {
    String md = Files.readString(docs().resolve("workflows.md"));
    Matcher m = EXAMPLE.matcher(md);
    int good = 0;
    int bad = 0;
    while (m.find()) {
      String file = WorkflowSet.DIRECTORY + m.group(2);
      WorkflowSet set = WorkflowSet.load(Map.of(file, m.group(3).getBytes(StandardCharsets.UTF_8)));
      if (m.group(1).equals("example")) {
        assertEquals(List.of(), set.errors(), "the docs' " + m.group(2) + " does not parse");
        assertEquals(1, set.workflows().size());
        good++;
      } else {
        assertEquals(1, set.errors().size(), "the docs' " + m.group(2) + " should fail");
        bad++;
      }
    }
    assertTrue(
        good >= 4 && bad >= 1, "found " + good + " examples and " + bad + " counter-examples");
  }

  @Test
  void theSchemaIsJsonAndNamesExactlyTheKeysTheParserAccepts() throws IOException {
    JsonNode schema = new ObjectMapper().readTree(docs().resolve("workflow.schema.json").toFile());
    JsonNode top = schema.get("properties");
    assertEquals(WorkflowParser.TOP_KEYS, keys(top));
    assertEquals(WorkflowParser.ON_KEYS, keys(top.get("on").get("properties")));
    assertEquals(
        WorkflowParser.PUSH_KEYS,
        keys(top.get("on").get("properties").get("push").get("properties")));
    assertEquals(
        WorkflowParser.PULL_KEYS,
        keys(top.get("on").get("properties").get("pull").get("properties")));
    assertEquals(
        WorkflowParser.ASKED_KEYS,
        keys(top.get("on").get("properties").get("asked").get("properties")));
    JsonNode step = top.get("steps").get("items").get("properties");
    assertEquals(WorkflowParser.STEP_KEYS, keys(step));
    assertEquals(WorkflowParser.STEP_ON_KEYS, keys(step.get("on").get("properties")));
    assertEquals(
        Set.of("cancel", "finish"),
        Set.of(
            top.get("superseded").get("enum").get(0).asText(),
            top.get("superseded").get("enum").get(1).asText()));
  }

  private static Set<String> keys(JsonNode obj) {
    Set<String> keys = new HashSet<>();
    obj.fieldNames().forEachRemaining(keys::add);
    return keys;
  }
}
