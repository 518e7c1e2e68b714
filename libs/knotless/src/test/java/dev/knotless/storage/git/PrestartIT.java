package dev.knotless.storage.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Git processes started ahead of need answer as ones started when asked would. */
class PrestartIT {

  @Test
  void aHistoryCheckStartedBeforeARefMovedSeesTheRefAsItIsWhenAsked(@TempDir Path tmp)
      throws Exception {
    Git git = Git.at(tmp.resolve("r.git"));
    git.run(null, "init", "--quiet", "--bare", git.gitDir().toString());
    String first = commit(git, "a", null);
    String second = commit(git, "b", first);
    // A hole: the first commit's object is gone, so the second's history is not whole.
    Files.delete(
        git.gitDir().resolve("objects/" + first.substring(0, 2) + "/" + first.substring(2)));

    git.prestart(Git.Ahead.HISTORY);
    assertEquals(Set.of(first), git.missing(List.of(first, second)));
    assertEquals(Optional.of(first), git.firstMissingReachable(List.of(second)), "the hole found");

    git.prestart(Git.Ahead.HISTORY);
    git.run(null, "update-ref", "refs/heads/main", second);
    assertEquals(
        Optional.empty(),
        git.firstMissingReachable(List.of(second)),
        "a tip a ref reaches now is not walked, though the ref moved after the start");
    git.endPrestarted();
  }

  @Test
  void whatWasStartedAndNotUsedEnds(@TempDir Path tmp) throws Exception {
    Git git = Git.at(tmp.resolve("r.git"));
    git.run(null, "init", "--quiet", "--bare", git.gitDir().toString());
    git.prestart(Git.Ahead.HISTORY, Git.Ahead.HISTORY);
    git.endPrestarted();
    for (ProcessHandle child : ProcessHandle.current().children().toList()) {
      if (child.info().command().orElse("").endsWith("git")) {
        child.onExit().get(10, TimeUnit.SECONDS);
      }
    }
    assertFalse(
        ProcessHandle.current()
            .children()
            .anyMatch(c -> c.isAlive() && c.info().command().orElse("").endsWith("git")),
        "no git left waiting");
  }

  private static String commit(Git git, String text, String parent) throws Exception {
    String blob =
        new String(
                git.run(text.getBytes(StandardCharsets.UTF_8), "hash-object", "-w", "--stdin"),
                StandardCharsets.UTF_8)
            .strip();
    String tree =
        new String(
                git.run(
                    ("100644 blob " + blob + "\tf\n").getBytes(StandardCharsets.UTF_8), "mktree"),
                StandardCharsets.UTF_8)
            .strip();
    List<String> args =
        parent == null
            ? List.of("commit-tree", tree, "-m", text)
            : List.of("commit-tree", tree, "-p", parent, "-m", text);
    return new String(
            git.withEnv("GIT_AUTHOR_NAME", "a")
                .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
                .withEnv("GIT_COMMITTER_NAME", "a")
                .withEnv("GIT_COMMITTER_EMAIL", "a@example.com")
                .run(null, args),
            StandardCharsets.UTF_8)
        .strip();
  }
}
