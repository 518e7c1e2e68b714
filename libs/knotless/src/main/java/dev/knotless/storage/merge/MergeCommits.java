package dev.knotless.storage.merge;

import dev.knotless.storage.git.Git;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The commit a pull is checked at: its head when the head already contains the base, else the merge
 * of the head into the base tip, made with {@code git merge-tree --write-tree} and {@code git
 * commit-tree} with a fixed author, committer, time and message, so the same head and base always
 * make the same commit, on any runner and in {@code knotless merge}. Nothing is checked out and no
 * ref moves: the merge commit is only an object in the mirror. Stateless; safe to share.
 */
public final class MergeCommits {

  /** The author and committer of every merge commit. */
  public static final String NAME = "knotless";

  /** Their email. */
  public static final String EMAIL = "merge@knotless.dev";

  /** Their time: the epoch, so nothing about when or where it was made enters the commit. */
  public static final String DATE = "@0 +0000";

  private MergeCommits() {}

  /** What a pull is checked at. */
  public sealed interface Merged permits Checked, Conflict {}

  /**
   * The pull merges cleanly.
   *
   * @param commit the commit to check out: the merge commit, or the head itself
   * @param merge whether {@code commit} is a merge commit (false: the head contains the base)
   */
  public record Checked(String commit, boolean merge) implements Merged {}

  /**
   * The head conflicts with the base.
   *
   * @param files the paths that conflict, in git's order
   */
  public record Conflict(List<String> files) implements Merged {
    public Conflict {
      files = List.copyOf(files);
    }
  }

  /** The message of a pull's merge commit: it ends with the pull's AT-URI. */
  public static String message(String headRef, String baseRef, String pullUri) {
    return "Merge " + branch(headRef) + " into " + branch(baseRef) + "\n\n" + pullUri + "\n";
  }

  /**
   * Merges {@code head} into {@code base} in the repository {@code git}, which must hold both.
   *
   * @throws IOException when git fails other than by a conflict
   */
  public static Merged merge(
      Git git, String head, String base, String headRef, String baseRef, String pullUri)
      throws IOException {
    if (git.isAncestor(base, head)) {
      return new Checked(head, false);
    }
    Git.Result r =
        git.exec(
            null,
            List.of("merge-tree", "--write-tree", "--name-only", "--no-messages", base, head));
    List<String> lines = r.out().lines().filter(l -> !l.isEmpty()).toList();
    if (r.exitCode() == 1) {
      List<String> files = new ArrayList<>();
      for (String f : lines.subList(1, lines.size())) {
        if (!files.contains(f)) {
          files.add(f);
        }
      }
      return new Conflict(files);
    }
    if (r.exitCode() != 0 || lines.isEmpty()) {
      throw new IOException(
          "git merge-tree of " + head + " into " + base + " failed: " + r.stderr().strip());
    }
    String tree = lines.get(0).strip();
    Git fixed =
        git.withEnv("GIT_AUTHOR_NAME", NAME)
            .withEnv("GIT_AUTHOR_EMAIL", EMAIL)
            .withEnv("GIT_AUTHOR_DATE", DATE)
            .withEnv("GIT_COMMITTER_NAME", NAME)
            .withEnv("GIT_COMMITTER_EMAIL", EMAIL)
            .withEnv("GIT_COMMITTER_DATE", DATE);
    byte[] msg = message(headRef, baseRef, pullUri).getBytes(StandardCharsets.UTF_8);
    String commit =
        new String(
                fixed.run(
                    msg,
                    "-c",
                    "i18n.commitEncoding=UTF-8",
                    "commit-tree",
                    "--no-gpg-sign",
                    tree,
                    "-p",
                    base,
                    "-p",
                    head),
                StandardCharsets.UTF_8)
            .strip();
    return new Checked(commit, true);
  }

  /**
   * One pull of a merge-queue batch.
   *
   * @param uri the pull's AT-URI
   * @param head its head's commit
   * @param headRef its head branch
   */
  public record Queued(String uri, String head, String headRef) {}

  /** What a batch's pulls make when stacked in order on the branch tip. */
  public sealed interface Stack permits Stacked, StackConflict {}

  /**
   * The batch's tip, and each pull's commit on the way to it.
   *
   * @param tip the last of {@code commits}: what the batch is checked at and, if it passes, lands
   * @param commits the commit each pull made, in order: a merge commit ending with its AT-URI, or
   *     its head where the head already held everything before it
   */
  public record Stacked(String tip, List<String> commits) implements Stack {
    public Stacked {
      commits = List.copyOf(commits);
    }
  }

  /**
   * A pull conflicts with the branch as the pulls before it in the batch leave it.
   *
   * @param index its place in the batch
   * @param files the paths that conflict
   */
  public record StackConflict(int index, List<String> files) implements Stack {
    public StackConflict {
      files = List.copyOf(files);
    }
  }

  /**
   * Stacks a merge-queue batch on {@code base}: each pull's head merged, in order, into what the
   * ones before it made, exactly as {@link #merge} merges one pull. So the tip, like a pull's merge
   * commit, depends only on the base and the pulls, and every pull's merge in it ends with its
   * AT-URI.
   *
   * @throws IOException when git fails other than by a conflict
   */
  public static Stack stack(Git git, String base, String baseRef, List<Queued> pulls)
      throws IOException {
    String at = base;
    List<String> commits = new ArrayList<>();
    for (int i = 0; i < pulls.size(); i++) {
      Queued q = pulls.get(i);
      Merged m = merge(git, q.head(), at, q.headRef(), baseRef, q.uri());
      if (m instanceof Conflict c) {
        return new StackConflict(i, c.files());
      }
      at = ((Checked) m).commit();
      commits.add(at);
    }
    return new Stacked(at, commits);
  }

  private static String branch(String ref) {
    return ref.startsWith("refs/heads/") ? ref.substring("refs/heads/".length()) : ref;
  }
}
