package dev.knotless.storage.git;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
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
        Commit commit = Commit.parse(c.data());
        if (commit == null) {
          return false;
        }
        List<byte[]> parentTrees = new ArrayList<>();
        Set<String> parentTreeNames = new HashSet<>();
        for (String p : commit.parents) {
          if (!whole.contains(p) && !brought.containsKey(p)) {
            return false;
          }
          byte[] data = content(p, "commit");
          Commit parent = data == null ? null : Commit.parse(data);
          byte[] tree = parent == null ? null : content(parent.tree, "tree");
          if (tree == null) {
            return false;
          }
          parentTreeNames.add(parent.tree);
          parentTrees.add(tree);
          todo.add(p);
        }
        // A commit with its parent's very tree (an empty commit, a revert) brings no tree.
        boolean same = !brought.containsKey(commit.tree) && parentTreeNames.contains(commit.tree);
        if (!same && !tree(commit.tree, parentTrees)) {
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
      List<Entry> entries = Entry.parse(t.data());
      List<List<Entry>> oldEntries = new ArrayList<>();
      for (byte[] old : olds) {
        List<Entry> e = Entry.parse(old);
        if (e == null) {
          return false;
        }
        oldEntries.add(e);
      }
      if (entries == null) {
        return false;
      }
      for (Entry e : entries) {
        if (e.submodule()) {
          continue; // a commit of another repository: neither git nor this looks for it
        }
        LooseObjects.Parsed o = brought.get(e.oid);
        if (o != null) {
          if (e.tree()) {
            List<byte[]> sub = new ArrayList<>();
            for (List<Entry> old : oldEntries) {
              for (Entry x : old) {
                if (x.name.equals(e.name) && x.tree()) {
                  byte[] data = content(x.oid, "tree");
                  if (data == null) {
                    return false;
                  }
                  sub.add(data);
                }
              }
            }
            if (!tree(e.oid, sub)) {
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

    private static boolean inOlds(Entry e, List<List<Entry>> olds) {
      for (List<Entry> old : olds) {
        for (Entry x : old) {
          if (x.oid.equals(e.oid) && x.tree() == e.tree() && !x.submodule()) {
            return true;
          }
        }
      }
      return false;
    }
  }

  /** A commit's tree and parents, from its header lines. */
  private record Commit(String tree, List<String> parents) {
    static Commit parse(byte[] data) {
      String text = new String(data, StandardCharsets.UTF_8);
      String[] lines = text.split("\n", -1);
      if (lines.length < 2 || !lines[0].startsWith("tree ")) {
        return null;
      }
      String tree = lines[0].substring(5);
      if (!ObjectFiles.isSha1(tree)) {
        return null;
      }
      List<String> parents = new ArrayList<>();
      for (int i = 1; i < lines.length && lines[i].startsWith("parent "); i++) {
        String p = lines[i].substring(7);
        if (!ObjectFiles.isSha1(p)) {
          return null;
        }
        parents.add(p);
      }
      return new Commit(tree, parents);
    }
  }

  /** One entry of a tree. */
  private record Entry(String mode, String name, String oid) {
    boolean tree() {
      return mode.equals("40000");
    }

    boolean submodule() {
      return mode.equals("160000");
    }

    /** A tree's entries, or null when it does not parse. */
    static List<Entry> parse(byte[] raw) {
      List<Entry> out = new ArrayList<>();
      int i = 0;
      while (i < raw.length) {
        int space = indexOf(raw, (byte) ' ', i);
        int nul = space < 0 ? -1 : indexOf(raw, (byte) 0, space);
        if (nul < 0 || nul + 1 + SHA_BYTES > raw.length) {
          return null;
        }
        out.add(
            new Entry(
                new String(raw, i, space - i, StandardCharsets.US_ASCII),
                new String(raw, space + 1, nul - space - 1, StandardCharsets.UTF_8),
                HexFormat.of().formatHex(raw, nul + 1, nul + 1 + SHA_BYTES)));
        i = nul + 1 + SHA_BYTES;
      }
      return out;
    }

    private static int indexOf(byte[] a, byte b, int from) {
      for (int i = from; i < a.length; i++) {
        if (a[i] == b) {
          return i;
        }
      }
      return -1;
    }
  }
}
