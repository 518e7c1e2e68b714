package dev.knotless.runner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.workflow.Superseded;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunOrderTest {
  static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  static RunOrder order() {
    return order(false);
  }

  static RunOrder order(boolean privateRepo) {
    return new RunOrder(
        "alice.test/app",
        "did:plc:alice",
        "3kabc",
        "refs/heads/main",
        SHA,
        null,
        "ci",
        RunClass.ASKED,
        Superseded.FINISH,
        Map.of("TARGET", "prod"),
        "3kcheck",
        privateRepo);
  }

  @Test
  void anOrderReadsBackAsItWasWrittenAndHoldsNoStepOrSecret() {
    RunOrder o = order();
    String json = o.toJson();
    assertEquals(o, RunOrder.fromJson(json));
    assertFalse(json.contains("run\""), json);
    assertTrue(json.contains("\"version\":\"1.2\""), json);
    assertTrue(json.contains("\"kind\":\"push\""), json);
    assertFalse(
        json.contains("private"), "a public repository's order says nothing of it: " + json);
  }

  @Test
  void aPrivateRepositorysOrderSaysSoAndAnOlderOrderReadsAsPublic() {
    RunOrder o = order(true);
    String json = o.toJson();
    assertTrue(json.contains("\"private\":true"), json);
    assertTrue(RunOrder.fromJson(json).privateRepo());
    assertEquals(o, RunOrder.fromJson(json));
    assertFalse(RunOrder.fromJson(order().toJson()).privateRepo());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RunOrder.fromJson(json.replace("\"private\":true", "\"private\":\"yes\"")));
    assertTrue(e.getMessage().startsWith("private is not true or false"), e.getMessage());
  }

  static final String HEAD = "89abcdef0123456789abcdef0123456789abcdef";
  static final String BASE = "fedcba9876543210fedcba9876543210fedcba98";
  static final String PULL = "at://did:plc:bob/dev.knotless.pull/3kabc.3kpull";

  static RunOrder pull() {
    return new RunOrder(
        "alice.test/app",
        "did:plc:alice",
        "3kabc",
        "refs/heads/main",
        SHA,
        BASE,
        "ci",
        RunClass.OTHER,
        Superseded.CANCEL,
        Map.of(),
        "3kpullcheck",
        RunOrder.Kind.PULL,
        List.of(new RunOrder.Stacked(PULL, HEAD, "refs/heads/feature")),
        false);
  }

  static RunOrder batch() {
    return new RunOrder(
        "alice.test/app",
        "did:plc:alice",
        "3kabc",
        "refs/heads/main",
        SHA,
        BASE,
        "ci",
        RunClass.MAIN,
        Superseded.CANCEL,
        Map.of(),
        "3kbatchcheck",
        RunOrder.Kind.BATCH,
        List.of(
            new RunOrder.Stacked(PULL, HEAD, "refs/heads/feature"),
            new RunOrder.Stacked(PULL + "2", BASE, "refs/heads/other")),
        false);
  }

  @Test
  void aPullsAndABatchsOrdersReadBackWithTheirPullsInOrder() {
    for (RunOrder o : List.of(pull(), batch())) {
      String json = o.toJson();
      assertEquals(o, RunOrder.fromJson(json), json);
      assertTrue(json.contains("\"kind\":\"" + o.kind().json() + "\""), json);
    }
    assertEquals(
        List.of(PULL, PULL + "2"),
        RunOrder.fromJson(batch().toJson()).pulls().stream().map(RunOrder.Stacked::uri).toList());
  }

  @Test
  void aVersionOneZeroRowWithNoKindIsAPushsOrder() {
    String v10 =
        order()
            .toJson()
            .replace("\"version\":\"1.2\"", "\"version\":\"1.0\"")
            .replace(",\"kind\":\"push\"", "");
    assertFalse(v10.contains("kind"), v10);
    RunOrder read = RunOrder.fromJson(v10);
    assertEquals(order(), read);
    assertEquals(RunOrder.Kind.PUSH, read.kind());
    assertEquals(List.of(), read.pulls());
  }

  @Test
  void aKindThisReaderDoesNotRunIsRefusedAsThatBeforeAnyOtherField() {
    String later =
        pull().toJson().replace("\"kind\":\"pull\"", "\"kind\":\"tag\"").replace(SHA, "x");
    String why =
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(later)).getMessage();
    assertTrue(why.startsWith("kind is \"tag\""), why);
    assertTrue(why.contains("push, pull and batch"), why);
    String number = pull().toJson().replace("\"kind\":\"pull\"", "\"kind\":3");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(number))
            .getMessage()
            .startsWith("kind is 3"));
  }

  @Test
  void aPullsOrderWithBadPullsIsRefusedNamingTheField() {
    Map<String, String> bad =
        Map.of(
            pull().toJson().replace(HEAD, "main"), "pulls[].head",
            pull().toJson().replace(PULL, "https://example.com"), "pulls[].uri",
            pull().toJson().replace("refs/heads/feature", "feature"), "pulls[].headRef",
            pull().toJson().replaceAll(",\"pulls\":\\[.*\\]", ""), "pulls holds 0",
            pull().toJson().replace("\"pulls\":[", "\"pulls\":{\"a\":[").replace("]", "]}"),
                "pulls is not an array",
            pull().toJson().replace(",\"base\":\"" + BASE + "\"", ""), "base is missing",
            batch().toJson().replaceAll(",\"pulls\":\\[.*\\]", ""), "pulls is empty");
    bad.forEach(
        (json, field) -> {
          String why =
              assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(json), json)
                  .getMessage();
          assertTrue(why.contains(field), field + ": " + why);
        });
    String pushWithPulls =
        order()
            .toJson()
            .replace(
                "\"kind\":\"push\"",
                "\"kind\":\"push\",\"pulls\":[{\"uri\":\""
                    + PULL
                    + "\",\"head\":\""
                    + HEAD
                    + "\",\"headRef\":\"refs/heads/x\"}]");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(pushWithPulls))
            .getMessage()
            .contains("pulls is not empty in a push's order"));
  }

  @Test
  void aNewerMinorVersionWithFieldsThisReaderDoesNotKnowIsRead() {
    String json =
        order().toJson().replace("\"version\":\"1.2\"", "\"version\":\"1.7\",\"later\":{\"x\":1}");
    assertEquals(order(), RunOrder.fromJson(json));
  }

  @Test
  void anotherMajorVersionOrABadFieldIsRefusedByName() {
    String v2 = order().toJson().replace("\"version\":\"1.2\"", "\"version\":\"2.0\"");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(v2))
            .getMessage()
            .contains("version 2.0"));
    String badCommit = order().toJson().replace(SHA, "HEAD");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(badCommit))
            .getMessage()
            .contains("commit"));
    String noLabel = order().toJson().replace("\"label\":\"alice.test/app\",", "");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(noLabel))
            .getMessage()
            .contains("label is missing"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson("[1]"))
            .getMessage()
            .contains("not a JSON object"));
  }
}
