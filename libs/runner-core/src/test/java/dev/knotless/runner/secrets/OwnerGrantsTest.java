package dev.knotless.runner.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SecretSeal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnerGrantsTest {

  private static final RunnerKeys KEYS =
      new RunnerKeys(List.of(RunnerKeys.Key.generate(Instant.EPOCH)));
  private static final String RUNNER = "did:plc:runner";
  private static final String OWNER = "did:plc:owner";
  private static final String KEY = "3lrepokey2222";

  private static OwnerGrants.Offer offer(
      SealBinding b, String listedName, List<String> listedRefs) {
    return new OwnerGrants.Offer(
        listedName, listedRefs, SecretSeal.seal(KEYS.newest().didKey(), b, "value-123456"));
  }

  @Test
  void aValueSealedForThisRepositoryAndRunnerOpensLimitedToItsRefs() {
    SealBinding b = new SealBinding(OWNER, KEY, RUNNER, "TOKEN", List.of("main"));
    OwnerGrants.Opened o =
        OwnerGrants.open(
            KEYS,
            RUNNER,
            OWNER,
            KEY,
            List.of(offer(b, "TOKEN", List.of("main"))),
            List.of("TOKEN"));
    assertTrue(o.logLines().isEmpty());
    SecretGrant g = o.grants().get("TOKEN");
    assertEquals("value-123456", g.value());
    assertTrue(g.reaches("refs/heads/main"));
    assertFalse(g.reaches("refs/heads/feat"));
  }

  @Test
  void whatTheListingClaimsDoesNotMatterOnlyWhereTheRunnerFoundIt() {
    SealBinding forOther = new SealBinding(OWNER, "3lotherrepo22", RUNNER, "TOKEN", List.of());
    SealBinding widened = new SealBinding(OWNER, KEY, RUNNER, "TOKEN", List.of("main"));
    List<OwnerGrants.Offer> offers =
        List.of(
            offer(forOther, "TOKEN", List.of()),
            // listed with its refs dropped, so that it would reach every branch
            offer(widened, "WIDE", List.of()));
    OwnerGrants.Opened o =
        OwnerGrants.open(KEYS, RUNNER, OWNER, KEY, offers, List.of("TOKEN", "WIDE"));
    assertTrue(o.grants().isEmpty());
    assertEquals(2, o.logLines().size());
    assertTrue(o.logLines().get(0).startsWith("==> TOKEN, sealed by the owner, could not be used"));
    for (String line : o.logLines()) {
      assertFalse(line.contains("value-123456"), line);
    }
  }

  @Test
  void namesTheWorkflowDoesNotAskForAreNotOpened() {
    SealBinding b = new SealBinding(OWNER, KEY, RUNNER, "TOKEN", List.of());
    OwnerGrants.Opened o =
        OwnerGrants.open(
            KEYS, RUNNER, OWNER, KEY, List.of(offer(b, "TOKEN", List.of())), List.of());
    assertTrue(o.grants().isEmpty());
    assertTrue(o.logLines().isEmpty());
  }
}
