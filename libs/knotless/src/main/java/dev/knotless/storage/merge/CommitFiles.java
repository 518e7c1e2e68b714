package dev.knotless.storage.merge;

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
   * The workflows at {@code commit}: the files under {@code .knotless/workflows/}, each read only
   * if its size, which the tree gives, is within {@link WorkflowSet#MAX_FILE_BYTES}; a bigger one
   * is an error without a byte of it read, so a 4 GB file costs nothing.
   */
  public static WorkflowSet workflowSet(Git git, String commit) throws IOException {
    byte[] listing =
        git.run(
            null,
            "ls-tree",
            "-r",
            "-z",
            "--long",
            "--full-tree",
            commit,
            "--",
            WorkflowSet.DIRECTORY);
    Map<String, byte[]> read = new LinkedHashMap<>();
    Map<String, Long> tooBig = new LinkedHashMap<>();
    for (String entry : split(listing)) {
      // <mode> SP <type> SP <object> SP+ <size> TAB <path>
      int tab = entry.indexOf('\t');
      String[] meta = entry.substring(0, tab).trim().split(" +");
      if (!meta[1].equals("blob")) {
        continue;
      }
      String path = entry.substring(tab + 1);
      long size = Long.parseLong(meta[3]);
      if (size > WorkflowSet.MAX_FILE_BYTES) {
        tooBig.put(path, size);
      } else if (WorkflowSet.isWorkflowPath(path) && WorkflowSet.fileNameProblem(path) != null) {
        read.put(path, new byte[0]); // an error by its name alone: not read
      } else if (WorkflowSet.isWorkflowPath(path)) {
        read.put(path, git.run(null, "cat-file", "blob", meta[2]));
      }
    }
    return WorkflowSet.load(read, tooBig);
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
