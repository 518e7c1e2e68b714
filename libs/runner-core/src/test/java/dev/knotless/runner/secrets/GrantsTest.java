package dev.knotless.runner.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GrantsTest {

  static final String LABEL = "alice.example/site";

  static Map<String, SecretGrant> file() throws SecretsFileException {
    return SecretsFile.parse(SecretsFileTest.FILE.getBytes(StandardCharsets.UTF_8), "s.json")
        .grants(LABEL);
  }

  @Test
  void aSecretReachesAStepOnlyIfListedGrantedAndItsRefsMatch() throws Exception {
    Grants.Result onMain =
        Grants.resolve(
            List.of("NPM_TOKEN", "DEPLOY_KEY", "MISSING"),
            LABEL,
            "refs/heads/main",
            false,
            file(),
            Map.of());
    assertEquals(
        Map.of("NPM_TOKEN", "npm-0123456789", "DEPLOY_KEY", "deploy-abcdef"), onMain.values());
    assertEquals(
        List.of("==> MISSING is not granted to alice.example/site at refs/heads/main"),
        onMain.logLines());

    Grants.Result onBranch =
        Grants.resolve(List.of("DEPLOY_KEY"), LABEL, "refs/heads/evil", false, file(), Map.of());
    assertEquals(Map.of(), onBranch.values());
    assertEquals(
        List.of("==> DEPLOY_KEY is not granted to alice.example/site at refs/heads/evil"),
        onBranch.logLines());
  }

  @Test
  void aSecretTheWorkflowDoesNotListIsNeverGiven() throws Exception {
    Grants.Result r = Grants.resolve(List.of(), LABEL, "refs/heads/main", false, file(), Map.of());
    assertEquals(Map.of(), r.values());
    assertEquals(List.of(), r.logLines());
  }

  @Test
  void aPullOrBatchRunGetsNoSecretsAndTheLogSaysWhichAreMissing() throws Exception {
    Grants.Result r =
        Grants.resolve(List.of("NPM_TOKEN"), LABEL, "refs/heads/main", true, file(), Map.of());
    assertEquals(Map.of(), r.values());
    assertEquals(1, r.logLines().size());
  }

  @Test
  void theFileWinsANameTheOwnerAlsoGrants() throws Exception {
    Map<String, SecretGrant> owner =
        Map.of(
            "NPM_TOKEN", new SecretGrant("NPM_TOKEN", "owner-npm-value", List.of()),
            "EXTRA", new SecretGrant("EXTRA", "owner-extra-value", List.of()));
    Grants.Result r =
        Grants.resolve(
            List.of("NPM_TOKEN", "EXTRA"), LABEL, "refs/heads/main", false, file(), owner);
    assertEquals(Map.of("NPM_TOKEN", "npm-0123456789", "EXTRA", "owner-extra-value"), r.values());
    assertFalse(r.toString().contains("value"), r.toString());
  }
}
