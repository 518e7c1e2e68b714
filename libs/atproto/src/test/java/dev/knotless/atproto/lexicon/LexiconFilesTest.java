package dev.knotless.atproto.lexicon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lexicons under lexicons/ are well formed and cover what the project reads and writes. */
class LexiconFilesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> MAIN_TYPES = Set.of("record", "query", "procedure");
  private static final Map<String, JsonNode> LEXICONS = new TreeMap<>();
  private static Path root;

  @BeforeAll
  static void readEveryFile() throws IOException {
    String repo = System.getProperty("knotless.repo.root");
    Path base = repo != null ? Path.of(repo) : Path.of("../..");
    root = base.resolve("lexicons").toAbsolutePath().normalize();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    for (Path file : files) {
      JsonNode doc;
      try {
        doc = JSON.readTree(file.toFile());
      } catch (IOException e) {
        throw new AssertionError(root.relativize(file) + " is not valid JSON: " + e.getMessage());
      }
      String rel = root.relativize(file).toString();
      LEXICONS.put(rel.substring(0, rel.length() - ".json".length()).replace('/', '.'), doc);
    }
  }

  @Test
  void everyRecordAndMethodTheProjectUsesHasALexicon() {
    for (String name :
        List.of(
            "repo", "ref", "claim", "pack", "redirect", "check", "rerun", "minutes", "runnerKey")) {
      JsonNode main = LEXICONS.getOrDefault("dev.knotless." + name, JSON.nullNode()).path("defs");
      assertEquals(
          "record", main.path("main").path("type").asText(), "dev.knotless." + name + " record");
    }
    assertEquals(
        "procedure",
        LEXICONS.get("dev.knotless.putRunOutput").path("defs").path("main").path("type").asText());
    assertEquals(
        "query",
        LEXICONS.get("dev.knotless.listRepos").path("defs").path("main").path("type").asText());
  }

  @Test
  void eachFileIsALexiconWhoseIdIsItsPath() {
    assertTrue(LEXICONS.size() >= 11, "found only " + LEXICONS.keySet() + " under " + root);
    LEXICONS.forEach(
        (nsid, doc) -> {
          assertEquals(1, doc.path("lexicon").asInt(), nsid + ": \"lexicon\" must be 1");
          assertEquals(nsid, doc.path("id").asText(), nsid + ": id does not match the path");
          String type = doc.path("defs").path("main").path("type").asText();
          assertTrue(MAIN_TYPES.contains(type), nsid + ": main is " + type);
        });
  }

  @Test
  void everyRecordNamesItsKeyAndDeclaresWhatItRequires() {
    LEXICONS.forEach(
        (nsid, doc) -> {
          JsonNode main = doc.path("defs").path("main");
          if (!"record".equals(main.path("type").asText())) {
            return;
          }
          String key = main.path("key").asText();
          assertTrue(
              Set.of("tid", "any", "nsid").contains(key) || key.startsWith("literal:"),
              nsid + ": record key type " + key);
          assertEquals("object", main.path("record").path("type").asText(), nsid);
          for (JsonNode required : main.path("record").path("required")) {
            assertTrue(
                main.path("record").path("properties").has(required.asText()),
                nsid + " requires " + required + " but does not define it");
          }
        });
  }

  @Test
  void everyReferencePointsAtADefinitionThatExists() {
    List<String> dangling = new ArrayList<>();
    LEXICONS.forEach((nsid, doc) -> collectRefs(nsid, doc, dangling));
    if (!dangling.isEmpty()) {
      fail("references to nothing: " + dangling);
    }
  }

  private static void collectRefs(String nsid, JsonNode node, List<String> dangling) {
    if (node.isObject()) {
      if ("ref".equals(node.path("type").asText())) {
        check(nsid, node.path("ref").asText(), dangling);
      }
      if ("union".equals(node.path("type").asText())) {
        node.path("refs").forEach(r -> check(nsid, r.asText(), dangling));
      }
      node.elements().forEachRemaining(child -> collectRefs(nsid, child, dangling));
    } else if (node.isArray()) {
      node.elements().forEachRemaining(child -> collectRefs(nsid, child, dangling));
    }
  }

  private static void check(String nsid, String ref, List<String> dangling) {
    int hash = ref.indexOf('#');
    String target = hash == 0 ? nsid : hash < 0 ? ref : ref.substring(0, hash);
    String def = hash < 0 ? "main" : ref.substring(hash + 1);
    JsonNode doc = LEXICONS.get(target);
    if (doc == null || !doc.path("defs").has(def)) {
      dangling.add(nsid + " -> " + ref);
    }
  }
}
