package dev.knotless.atproto.lexicon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lexicon check finds each way a record can disagree with its lexicon, and passes one that
 * agrees.
 */
class LexiconValidatorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHA = "c".repeat(40);
  private static LexiconValidator lexicons;

  @BeforeAll
  static void load() throws Exception {
    String root = System.getProperty("knotless.repo.root", "../..");
    lexicons = LexiconValidator.load(Path.of(root, "lexicons"));
  }

  private static List<String> problems(String nsid, String json) throws Exception {
    return lexicons.problems(nsid, JSON.readTree(json));
  }

  private static void onlyProblem(String expected, List<String> problems) {
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains(expected), problems.get(0));
  }

  @Test
  void aClaimWithEveryFieldRightHasNoProblems() throws Exception {
    String claim =
        "{\"$type\":\"dev.knotless.claim\",\"from\":\"%s\",\"to\":\"%s\",\"pack\":\"3kabcdefghijk.3kabcdefghijk\",\"createdAt\":\"2026-11-29T12:00:00.000Z\"}"
            .formatted(SHA, SHA);
    assertEquals(List.of(), problems("dev.knotless.claim", claim));
  }

  @Test
  void aFieldTheLexiconDoesNotHaveIsReported() throws Exception {
    onlyProblem(
        "dev.knotless.claim.colour is written but not in the lexicon",
        problems(
            "dev.knotless.claim",
            "{\"from\":\"%s\",\"createdAt\":\"2026-11-29T12:00:00Z\",\"colour\":\"red\"}"
                .formatted(SHA)));
  }

  @Test
  void aMissingRequiredFieldIsReported() throws Exception {
    onlyProblem(
        "dev.knotless.claim.createdAt is required",
        problems("dev.knotless.claim", "{\"from\":\"%s\"}".formatted(SHA)));
  }

  @Test
  void aWrongTypeABadFormatAndABrokenBoundAreEachReported() throws Exception {
    onlyProblem(
        "dev.knotless.ref.generation is not an integer",
        problems(
            "dev.knotless.ref",
            "{\"name\":\"refs/heads/main\",\"generation\":\"7\",\"createdAt\":\"2026-11-29T12:00:00Z\"}"));
    onlyProblem(
        "dev.knotless.ref.createdAt is not a valid datetime",
        problems(
            "dev.knotless.ref",
            "{\"name\":\"refs/heads/main\",\"generation\":7,\"createdAt\":\"yesterday\"}"));
    onlyProblem(
        "dev.knotless.ref.generation is -1, below minimum 0",
        problems(
            "dev.knotless.ref",
            "{\"name\":\"refs/heads/main\",\"generation\":-1,\"createdAt\":\"2026-11-29T12:00:00Z\"}"));
    onlyProblem(
        "dev.knotless.claim.from is 3, below minLength 40",
        problems(
            "dev.knotless.claim", "{\"from\":\"abc\",\"createdAt\":\"2026-11-29T12:00:00Z\"}"));
  }

  @Test
  void nestedObjectsAreCheckedThroughTheirRefs() throws Exception {
    String check =
        "{\"repo\":\"at://did:plc:abc/dev.knotless.repo/r\",\"commit\":\"%s\",\"workflow\":\"ci\",\"status\":\"success\",\"createdAt\":\"2026-11-29T12:00:00Z\",\"steps\":[{\"name\":\"build\",\"status\":\"success\",\"why\":\"x\"}]}"
            .formatted(SHA);
    onlyProblem(
        "dev.knotless.check.steps[0].why is written but not in the lexicon",
        problems("dev.knotless.check", check));
  }

  @Test
  void aRecordTypeWithNoLexiconIsReported() throws Exception {
    onlyProblem("no record lexicon", problems("dev.knotless.nothing", "{}"));
    assertTrue(lexicons.recordTypes().contains("dev.knotless.runnerKey"));
  }

  @Test
  void formatsAcceptWhatAtprotoWritesAndRefuseTheRest() {
    assertTrue(LexiconValidator.formatOk("datetime", "2026-11-29T12:00:00.123Z"));
    assertTrue(LexiconValidator.formatOk("datetime", "2026-11-29T12:00:00+01:00"));
    assertTrue(!LexiconValidator.formatOk("datetime", "2026-11-29"));
    assertTrue(LexiconValidator.formatOk("did", "did:plc:abcdefghijklmnopqrstuvwx"));
    assertTrue(!LexiconValidator.formatOk("did", "alice.test"));
    assertTrue(!LexiconValidator.formatOk("tid", "not-a-tid"));
    assertTrue(!LexiconValidator.formatOk("at-uri", "https://example.com"));
    assertTrue(LexiconValidator.formatOk("uri", "https://example.com"));
  }
}
