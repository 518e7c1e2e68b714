package dev.knotless.storage.merge;

import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.git.ObjectText;
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
   *
   * <p>A tree the commit names but the repository lacks (a sync still writing objects) fails the
   * read: only a directory that is not in the commit's tree means no workflows.
   */
  public static WorkflowSet workflowSet(Git git, String commit) throws IOException {
    try (ObjectReader r = ObjectReader.open(git)) {
      if (r.info(commit + "^{commit}") != null) {
        Map<String, byte[]> read = new LinkedHashMap<>();
        Map<String, Long> tooBig = new LinkedHashMap<>();
        List<ObjectText.TreeEntry> top = workflowsTree(r, commit);
        if (top != null) {
          walk(r, WorkflowSet.DIRECTORY, top, read, tooBig);
        }
        return WorkflowSet.load(read, tooBig);
      }
    } catch (IOException e) {
      // Below, one git command at a time, which says what is wrong in its own words.
    }
    return workflowSetByCommands(git, commit);
  }

  /**
   * The entries of the commit's workflow directory, walked down from its root tree one name at a
   * time; null when the directory is not there.
   *
   * @throws IOException when a tree on the way is named but missing
   */
  private static List<ObjectText.TreeEntry> workflowsTree(ObjectReader r, String commit)
      throws IOException {
    List<ObjectText.TreeEntry> tree = r.tree(commit + "^{tree}");
    String at = commit + "^{tree}";
    if (tree == null) {
      throw new IOException("no tree " + at);
    }
    for (String name : WorkflowSet.DIRECTORY.split("/")) {
      ObjectText.TreeEntry found = null;
      for (ObjectText.TreeEntry e : tree) {
        if (e.name().equals(name)) {
          found = e;
        }
      }
      if (found == null || !found.tree()) {
        return null;
      }
      at = found.oid();
      tree = r.tree(at);
      if (tree == null) {
        throw new IOException("no tree " + at + " at " + name);
      }
    }
    return tree;
  }

  /** The files under a tree, as {@code ls-tree -r} lists them, read as the listing says. */
  private static void walk(
      ObjectReader r,
      String prefix,
      List<ObjectText.TreeEntry> entries,
      Map<String, byte[]> read,
      Map<String, Long> tooBig)
      throws IOException {
    for (ObjectText.TreeEntry e : entries) {
      String path = prefix + e.name();
      if (e.tree()) {
        List<ObjectText.TreeEntry> sub = r.tree(e.oid());
        if (sub == null) {
          throw new IOException("no tree " + e.oid() + " at " + path);
        }
        walk(r, path + "/", sub, read, tooBig);
        continue;
      }
      if (e.submodule()) {
        continue;
      }
      ObjectReader.Info info = r.info(e.oid());
      if (info == null) {
        throw new IOException("no blob " + e.oid() + " at " + path);
      }
      if (info.size() > WorkflowSet.MAX_FILE_BYTES) {
        tooBig.put(path, info.size());
      } else if (WorkflowSet.isWorkflowPath(path) && WorkflowSet.fileNameProblem(path) != null) {
        read.put(path, new byte[0]); // an error by its name alone: not read
      } else if (WorkflowSet.isWorkflowPath(path)) {
        read.put(path, r.contents(e.oid()));
      }
    }
  }

  private static WorkflowSet workflowSetByCommands(Git git, String commit) throws IOException {
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
      if (!meta[3].chars().allMatch(Character::isDigit)) {
        // ls-tree gives a blob it cannot find no size.
        throw new IOException("no blob " + meta[2] + " at " + path);
      }
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
    try (ObjectReader r = ObjectReader.open(git)) {
      List<ObjectText.TreeEntry> a = r.tree(from + "^{tree}");
      List<ObjectText.TreeEntry> b = r.tree(to + "^{tree}");
      if (a != null && b != null) {
        Set<String> out = new java.util.TreeSet<>();
        diff(r, "", a, b, out);
        return new LinkedHashSet<>(out);
      }
    } catch (IOException e) {
      // Below, as git diff says it.
    }
    byte[] out = git.run(null, "diff", "--name-only", "-z", "--no-renames", from, to);
    return new LinkedHashSet<>(split(out));
  }

  /**
   * The paths that differ between two trees, as {@code git diff --name-only --no-renames} names
   * them: a file added, removed, or changed in content or mode; a tree's files when it is added or
   * removed or replaced by a file. Subtrees that are the same are not read.
   */
  private static void diff(
      ObjectReader r,
      String prefix,
      List<ObjectText.TreeEntry> a,
      List<ObjectText.TreeEntry> b,
      Set<String> out)
      throws IOException {
    Map<String, ObjectText.TreeEntry> as = new LinkedHashMap<>();
    Map<String, ObjectText.TreeEntry> bs = new LinkedHashMap<>();
    a.forEach(e -> as.put(e.name(), e));
    b.forEach(e -> bs.put(e.name(), e));
    Set<String> names = new java.util.TreeSet<>(as.keySet());
    names.addAll(bs.keySet());
    for (String name : names) {
      ObjectText.TreeEntry x = as.get(name);
      ObjectText.TreeEntry y = bs.get(name);
      if (x != null && y != null && x.oid().equals(y.oid()) && x.mode().equals(y.mode())) {
        continue;
      }
      String path = prefix + name;
      boolean xt = x != null && x.tree();
      boolean yt = y != null && y.tree();
      if (xt || yt) {
        diff(r, path + "/", xt ? subtree(r, x) : List.of(), yt ? subtree(r, y) : List.of(), out);
      }
      if ((x != null && !xt) || (y != null && !yt)) {
        out.add(path);
      }
    }
  }

  private static List<ObjectText.TreeEntry> subtree(ObjectReader r, ObjectText.TreeEntry e)
      throws IOException {
    List<ObjectText.TreeEntry> t = r.tree(e.oid());
    if (t == null) {
      throw new IOException("no tree " + e.oid());
    }
    return t;
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
