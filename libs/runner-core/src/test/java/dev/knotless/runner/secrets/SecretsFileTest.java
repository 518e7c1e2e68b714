package dev.knotless.runner.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsFileTest {

  static final String FILE =
      """
      {
        "alice.example/site": {
          "NPM_TOKEN": "npm-0123456789",
          "DEPLOY_KEY": {"value": "deploy-abcdef", "refs": ["refs/heads/main", "refs/tags/v*"]}
        },
        "did:plc:bob/tools": {"TOKEN": "bob-token-1"}
      }
      """;

  static SecretsFile parse(String text) throws SecretsFileException {
    return SecretsFile.parse(text.getBytes(StandardCharsets.UTF_8), "secrets.json");
  }

  static String problem(String text) {
    return assertThrows(SecretsFileException.class, () -> parse(text)).getMessage();
  }

  @Test
  void grantsAreReadPerLabelExactlyAsGiven() throws Exception {
    SecretsFile f = parse(FILE);
    Map<String, SecretGrant> site = f.grants("alice.example/site");
    assertEquals("npm-0123456789", site.get("NPM_TOKEN").value());
    assertTrue(site.get("NPM_TOKEN").reaches("refs/heads/anything"));
    assertTrue(site.get("DEPLOY_KEY").reaches("refs/tags/v1.0"));
    assertFalse(site.get("DEPLOY_KEY").reaches("refs/heads/dev"));
    assertEquals(Map.of(), f.grants("alice.example/Site"), "labels match exactly");
    assertEquals(Map.of(), f.grants("did:plc:alice/site"));
  }

  @Test
  void yamlOfTheSameShapeIsAccepted() throws Exception {
    SecretsFile f =
        parse(
            """
            alice.example/site:
              NPM_TOKEN: npm-0123456789
              DEPLOY_KEY:
                value: deploy-abcdef
                refs: [main]
            """);
    SecretGrant key = f.grants("alice.example/site").get("DEPLOY_KEY");
    assertTrue(key.reaches("refs/heads/main"), "a bare pattern is a branch");
    assertFalse(key.reaches("refs/tags/main"));
  }

  @Test
  void aMalformedFileNamesTheProblemButNeverAValue() {
    String[] bad = {
      "{\"repo/x\": {\"TOKEN\": sup3r-s3cret-value}}",
      "{\"repo/x\": {\"TOKEN\": \"sup3r-s3cret-value\", \"TOKEN\": \"sup3r-s3cret-value\"}}",
      "repo/x:\n  TOKEN: [sup3r-s3cret-value\n",
      "{\"repo/x\": {\"TOKEN\": {\"value\": \"sup3r-s3cret-value\", \"ref\": [\"main\"]}}}",
      "{\"repo/x\": {\"TOKEN\": {\"valu\": \"sup3r-s3cret-value\"}}}",
      "{\"repo/x\": {\"BAD NAME\": \"sup3r-s3cret-value\"}}",
      "{\"repo/x\": [\"sup3r-s3cret-value\"]}",
      "[\"sup3r-s3cret-value\"]",
    };
    for (String text : bad) {
      String message = problem(text);
      assertTrue(message.startsWith("secrets.json"), message);
      assertFalse(message.contains("sup3r"), "value leaked: " + message);
    }
    assertTrue(problem(bad[0]).contains("line 1"), problem(bad[0]));
    assertTrue(problem(bad[1]).contains("twice"), problem(bad[1]));
    assertTrue(problem(bad[3]).contains("TOKEN.ref"), problem(bad[3]));
    assertTrue(problem(bad[5]).contains("not a variable name"), problem(bad[5]));
  }

  @Test
  void noneOfItsPrintedFormsShowsAValue() throws Exception {
    SecretsFile f = parse(FILE);
    assertFalse(f.toString().contains("npm-0123456789"));
    assertFalse(f.grants("alice.example/site").toString().contains("deploy-abcdef"));
  }

  @Test
  void anUnreadableFileIsAnErrorNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("nope.json");
    String m =
        assertThrows(SecretsFileException.class, () -> SecretsFiles.read(missing)).getMessage();
    assertTrue(m.contains(missing.toString()) && m.contains("does not exist"), m);
  }

  @Test
  void removingALabelRewritesTheFileAtomicallyAndKeepsTheRest(@TempDir Path dir)
      throws IOException, SecretsFileException {
    Path file = dir.resolve("secrets.json");
    Files.writeString(file, FILE);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertTrue(SecretsFiles.removeLabel(file, "alice.example/site"));
    SecretsFile after = SecretsFiles.read(file);
    assertEquals(List.of("did:plc:bob/tools"), List.copyOf(after.labels()));
    assertEquals("bob-token-1", after.grants("did:plc:bob/tools").get("TOKEN").value());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(List.of(file), Files.list(dir).toList(), "no temporary file is left");
    assertFalse(SecretsFiles.removeLabel(file, "alice.example/site"), "nothing left to remove");
  }

  @Test
  void aYamlFileStaysYamlWhenALabelIsRemoved(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("secrets.yml");
    Files.writeString(
        file,
        "gone/repo:\n  A_TOKEN: x-value-1\nkept/repo:\n  B:\n    value: y-value-2\n    refs: [main]\n");
    SecretsFiles.removeLabel(file, "gone/repo");
    String text = Files.readString(file);
    assertFalse(text.trim().startsWith("{"), text);
    SecretGrant b = SecretsFiles.read(file).grants("kept/repo").get("B");
    assertEquals("y-value-2", b.value());
    assertTrue(b.reaches("refs/heads/main"));
    assertFalse(text.contains("x-value-1"));
  }
}
