package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.testing.Fuzz;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The workflow parser and the check record reader over hostile input: a pusher writes the workflow,
 * a PDS serves the check. Random bytes, and valid inputs mutated (bit flips, cuts, splices, huge
 * scalars, deep nesting, alias bombs). Each either reads or is refused with its named exception
 * carrying a message; nothing else escapes and nothing takes long.
 */
class WorkflowAndCheckPropertyTest {
  private static final String WORKFLOW =
      "name: unit tests\n"
          + "on:\n"
          + "  push:\n"
          + "    refs: [refs/heads/main, \"refs/tags/*\"]\n"
          + "  pull:\n"
          + "    base: [main]\n"
          + "    paths: [\"src/**\"]\n"
          + "image: alpine\n"
          + "steps:\n"
          + "  - name: build\n"
          + "    run: |\n"
          + "      make\n"
          + "      make test\n"
          + "    secrets: [TOKEN]\n"
          + "    timeout: 10m\n"
          + "  - run: echo done\n";

  private static final List<byte[]> YAML_TOKENS =
      List.of(
          Fuzz.utf8("&a [*a, *a]"),
          Fuzz.utf8("*nowhere"),
          Fuzz.utf8("!!binary AAAA"),
          Fuzz.utf8("!!java.lang.Object {}"),
          Fuzz.utf8("? [a]: b\n"),
          Fuzz.utf8("\n---\n"),
          Fuzz.utf8("1e999999999"),
          Fuzz.utf8("\t"),
          Fuzz.utf8("%YAML 9.9\n"),
          Fuzz.utf8("\"\\u"),
          Fuzz.utf8("x".repeat(100_000)),
          new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, (byte) 0xc3});

  private static final String BILLION_LAUGHS =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
          + "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
          + "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
          + "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
          + "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
          + "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
          + "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
          + "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
          + "steps: [*h]\n";

  private static boolean parses(String file, byte[] content) {
    return Fuzz.holds(
        "WorkflowParser.parse",
        content,
        c -> WorkflowParser.parse(file, c),
        WorkflowParser.Invalid.class);
  }

  @Test
  void workflowFilesParseOrAreRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED);
    byte[] yaml = Fuzz.utf8(WORKFLOW);
    Fuzz.byteCases(
        "WorkflowParser.parse (YAML)",
        r,
        400,
        Fuzz.ByteCases.of(yaml, YAML_TOKENS, Fuzz.utf8("["), Fuzz.utf8("- ")),
        content -> content,
        content -> WorkflowParser.parse("ci.yaml", content),
        WorkflowParser.Invalid.class);
  }

  @Test
  void jsonWorkflowFilesParseOrAreRefusedNamingWhy() throws Exception {
    Random r = new Random(Fuzz.SEED + 1);
    ObjectNode valid =
        (ObjectNode)
            new ObjectMapper()
                .valueToTree(
                    new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(WORKFLOW));
    int n = Fuzz.iterations(400);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally tally = new Fuzz.Tally();
          for (int i = 0; i < n; i++) {
            byte[] content =
                i % 2 == 0
                    ? Fuzz.utf8(Fuzz.mutateTree(r, valid).toString())
                    : Fuzz.mutate(
                        r, Fuzz.utf8(valid.toString()), Fuzz.JSON_TOKENS, Fuzz.utf8("{\"a\":"));
            tally.add(parses("ci.json", content));
          }
          tally.assertBothOutcomes("WorkflowParser.parse (JSON)");
        });
  }

  @Test
  void aliasBombsAndDeepNestingAreRefusedQuickly() {
    Fuzz.batch(
        3,
        () -> {
          assertFalse(parses("ci.yaml", BILLION_LAUGHS.getBytes(StandardCharsets.UTF_8)));
          assertFalse(parses("ci.yaml", Fuzz.nest(Fuzz.utf8("x"), 0, Fuzz.utf8("["), 100_000)));
          assertFalse(parses("ci.yaml", Fuzz.nest(Fuzz.utf8("x"), 0, Fuzz.utf8("a:\n "), 5_000)));
        });
  }

  @Test
  void checkRecordsReadOrAreRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED + 2);
    Instant t0 = Instant.parse("2026-11-29T10:00:00Z");
    ObjectNode image = JsonNodeFactory.instance.objectNode();
    image.put("$type", "dev.knotless.check#imageOutput");
    image.put("name", "coverage.png");
    image.set("image", new BlobRef("bafkreiabc", "image/png", 10).toJson());
    ObjectNode valid =
        new CheckRecord(
                "at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.repo/app",
                "refs/heads/feature",
                "a".repeat(40),
                "b".repeat(40),
                "at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.pull/3lbqmxnq7cs2b",
                "unit tests",
                CheckStatus.RUNNING,
                t0,
                t0.plusSeconds(1),
                null,
                List.of(),
                new BlobRef("bafkreiabd", "text/plain", 1234),
                List.of(image),
                null)
            .ended(
                CheckStatus.FAILURE,
                t0.plusSeconds(60),
                List.of(
                    new StepResult("build", StepResult.Status.SUCCESS, t0, t0.plusSeconds(5), null),
                    new StepResult("test", StepResult.Status.FAILURE, t0, t0.plusSeconds(9), "x")),
                "a note")
            .toJson();
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally tally = new Fuzz.Tally();
          for (int i = 0; i < n; i++) {
            tally.add(
                Fuzz.holds(
                    "CheckRecord.fromJson",
                    i % 10 == 0 ? Fuzz.randomNode(r, 3) : Fuzz.mutateTree(r, valid),
                    CheckRecord::fromJson,
                    IllegalArgumentException.class));
          }
          tally.assertBothOutcomes("CheckRecord.fromJson");
        });
  }
}
