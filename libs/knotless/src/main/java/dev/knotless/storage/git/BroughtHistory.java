package dev.knotless.storage.git;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether the history of commits a small pack brought is whole, decided in this JVM from the pack's
 * objects and the trees of the commits they follow, where {@code rev-list --objects --missing=print
 * --not --all} costs a process start (5 to 17 ms on the path from a push to its check running).
 *
 * <p>It says "whole" only when it can show it, and otherwise leaves the question to git: every
 * wanted tip is a ref's target or a commit the pack brought; each brought commit's parents are
 * refs' targets or brought; and every object a brought commit or tree names is either brought
 * itself (of the type named) or an entry of the same kind in one of the parents' trees at the same
 * place. A ref's target has its whole history here (no ref is set before this check, or git's, has
 * passed), so anything its trees name is here with all it reaches. A tag, a commit whose parent is
 * neither, a file moved to another directory in the same push, or a tree of its parents that the
 * files cannot read sends the question to git. Stateless.
 */
public final class BroughtHistory {
  private static final int SHA_BYTES = PackIndex.SHA_BYTES;

  private BroughtHistory() {}

  /**
   * True when everything {@code wanted} reaches is shown to be here: brought by {@code brought}
   * (objects just written to {@code git}'s repository) or reached from {@code whole} (the targets
   * of its refs). False means only that git must be asked.
   */
  public static boolean shownWhole(
      Git git,
      Collection<LooseObjects.Parsed> brought,
      Collection<String> wanted,
      Set<String> whole) {
    Map<String, LooseObjects.Parsed> byName = new HashMap<>();
    brought.forEach(o -> byName.put(o.name(), o));
    try (StoredObjects files = StoredObjects.open(git).orElse(null)) {
      if (files == null) {
        return false;
      }
      return new Walk(byName, whole, files).commits(wanted);
    }
  }

  private static final class Walk {
    private final Map<String, LooseObjects.Parsed> brought;
    private final Set<String> whole;
    private final StoredObjects files;
    private final Set<String> treesShown = new HashSet<>();

    Walk(Map<String, LooseObjects.Parsed> brought, Set<String> whole, StoredObjects files) {
      this.brought = brought;
      this.whole = whole;
      this.files = files;
    }

    boolean commits(Collection<String> wanted) {
      List<String> todo = new ArrayList<>(wanted);
      Set<String> seen = new HashSet<>();
      while (!todo.isEmpty()) {
        String sha = todo.remove(todo.size() - 1);
        if (whole.contains(sha) || !seen.add(sha)) {
          continue;
        }
        LooseObjects.Parsed c = brought.get(sha);
        if (c == null || !c.type().equals("commit")) {
          return false;
        }
        ObjectText.CommitHead commit = ObjectText.commit(c.data());
        if (commit == null) {
          return false;
        }
        List<byte[]> parentTrees = new ArrayList<>();
        Set<String> parentTreeNames = new HashSet<>();
        for (String p : commit.parents()) {
          if (!whole.contains(p) && !brought.containsKey(p)) {
            return false;
          }
          byte[] data = content(p, "commit");
          ObjectText.CommitHead parent = data == null ? null : ObjectText.commit(data);
          byte[] tree = parent == null ? null : content(parent.tree(), "tree");
          if (tree == null) {
            return false;
          }
          parentTreeNames.add(parent.tree());
          parentTrees.add(tree);
          todo.add(p);
        }
        // A commit with its parent's very tree (an empty commit, a revert) brings no tree.
        boolean same =
            !brought.containsKey(commit.tree()) && parentTreeNames.contains(commit.tree());
        if (!same && !tree(commit.tree(), parentTrees)) {
          return false;
        }
      }
      return true;
    }

    private byte[] content(String sha, String type) {
      LooseObjects.Parsed o = brought.get(sha);
      if (o != null) {
        return o.type().equals(type) ? o.data() : null;
      }
      var read = files.read(sha);
      return read.isPresent() && read.get().type().equals(type) ? read.get().data() : null;
    }

    /**
     * Whether tree {@code sha}, at a place where the parents' trees are {@code olds}, is shown
     * whole: brought and each entry shown, or one of the olds itself.
     */
    private boolean tree(String sha, List<byte[]> olds) {
      LooseObjects.Parsed t = brought.get(sha);
      if (t == null || !t.type().equals("tree")) {
        return false;
      }
      if (!treesShown.add(sha)) {
        return true;
      }
      List<ObjectText.TreeEntry> entries = ObjectText.tree(t.data(), SHA_BYTES);
      List<List<ObjectText.TreeEntry>> oldEntries = new ArrayList<>();
      for (byte[] old : olds) {
        List<ObjectText.TreeEntry> e = ObjectText.tree(old, SHA_BYTES);
        if (e == null) {
          return false;
        }
        oldEntries.add(e);
      }
      if (entries == null) {
        return false;
      }
      for (ObjectText.TreeEntry e : entries) {
        if (e.submodule()) {
          continue; // a commit of another repository: neither git nor this looks for it
        }
        LooseObjects.Parsed o = brought.get(e.oid());
        if (o != null) {
          if (e.tree()) {
            List<byte[]> sub = new ArrayList<>();
            for (List<ObjectText.TreeEntry> old : oldEntries) {
              for (ObjectText.TreeEntry x : old) {
                if (x.name().equals(e.name()) && x.tree()) {
                  byte[] data = content(x.oid(), "tree");
                  if (data == null) {
                    return false;
                  }
                  sub.add(data);
                }
              }
            }
            if (!tree(e.oid(), sub)) {
              return false;
            }
          } else if (!o.type().equals("blob")) {
            return false;
          }
        } else if (!inOlds(e, oldEntries)) {
          return false;
        }
      }
      return true;
    }

    private static boolean inOlds(ObjectText.TreeEntry e, List<List<ObjectText.TreeEntry>> olds) {
      for (List<ObjectText.TreeEntry> old : olds) {
        for (ObjectText.TreeEntry x : old) {
          if (x.oid().equals(e.oid()) && x.tree() == e.tree() && !x.submodule()) {
            return true;
          }
        }
      }
      return false;
    }
  }
}
