package dev.knotless.runner.pass;

import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.git.Git;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads what a pass needs from a commit in the mirror, without a checkout: the workflow files at
 * the commit, and the paths a push changed. Stateless; safe to share.
 */
public final class CommitFiles {

  private CommitFiles() {}

  /**
   * The files under {@code .knotless/workflows/} at {@code commit}, by path, in path order. Files
   * of other kinds are left to {@link WorkflowSet#load}, which knows which ones count.
   */
  public static Map<String, byte[]> workflows(Git git, String commit) throws IOException {
    byte[] listing =
        git.run(null, "ls-tree", "-r", "-z", "--full-tree", commit, "--", WorkflowSet.DIRECTORY);
    List<String[]> blobs = new ArrayList<>();
    for (String entry : split(listing)) {
      // <mode> SP <type> SP <object> TAB <path>
      int tab = entry.indexOf('\t');
      String[] meta = entry.substring(0, tab).split(" ");
      if (meta[1].equals("blob")) {
        blobs.add(new String[] {meta[2], entry.substring(tab + 1)});
      }
    }
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (String[] b : blobs) {
      out.put(b[1], git.run(null, "cat-file", "blob", b[0]));
    }
    return out;
  }

  /**
   * The paths that differ between {@code from} and {@code to}, or null when {@code from} is null
   * (unknown, as for a new ref: then no paths filter skips anything).
   */
  public static Set<String> changed(Git git, String from, String to) throws IOException {
    if (from == null || from.equals(to)) {
      return from == null ? null : Set.of();
    }
    byte[] out = git.run(null, "diff", "--name-only", "-z", "--no-renames", from, to);
    return new LinkedHashSet<>(split(out));
  }

  private static List<String> split(byte[] nulSeparated) {
    List<String> out = new ArrayList<>();
    ByteArrayOutputStream cur = new ByteArrayOutputStream();
    for (byte b : nulSeparated) {
      if (b == 0) {
        out.add(cur.toString(StandardCharsets.UTF_8));
        cur.reset();
      } else {
        cur.write(b);
      }
    }
    if (cur.size() > 0) {
      out.add(cur.toString(StandardCharsets.UTF_8));
    }
    return out;
  }
}
