package dev.knotless.runner.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps the examples of docs/secrets.md readable by the runner. */
class SecretsDocsTest {

  @Test
  void theSecretsFileExamplesInTheDocsParseAndGrantWhatTheySay() throws Exception {
    String root = System.getProperty("knotless.repo.root");
    Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/secrets.md"))) {
      dir = dir.getParent();
    }
    assertTrue(dir != null, "docs/secrets.md not found");
    String md = Files.readString(dir.resolve("docs/secrets.md"));
    Matcher m = Pattern.compile("```(json|yaml)\\n(.*?)```", Pattern.DOTALL).matcher(md);
    int files = 0;
    while (m.find()) {
      SecretsFile f =
          SecretsFile.parse(m.group(2).getBytes(StandardCharsets.UTF_8), "docs " + m.group(1));
      SecretGrant deploy = f.grants("alice.example/site").get("DEPLOY_TOKEN");
      assertEquals("dt_fedcba9876543210", deploy.value());
      assertTrue(deploy.reaches("refs/heads/main") && deploy.reaches("refs/tags/v2"));
      assertTrue(!deploy.reaches("refs/heads/feature"));
      files++;
    }
    assertEquals(2, files);
  }
}
