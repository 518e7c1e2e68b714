package dev.knotless.storage.git;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The parts of git's object formats the readers in this JVM need: a tree's entries, and a commit's
 * tree and parents. Each returns null for content that does not parse, for the caller to refuse or
 * leave to git. Stateless.
 */
public final class ObjectText {
  private static final Pattern NAME = Pattern.compile("[0-9a-f]{40}([0-9a-f]{24})?");

  private ObjectText() {}

  /** One entry of a tree: its mode, name and object id. */
  public record TreeEntry(String mode, String name, String oid) {
    public boolean tree() {
      return mode.equals("40000");
    }

    public boolean submodule() {
      return mode.equals("160000");
    }
  }

  /** A commit's tree and parents, from its first lines. */
  public record CommitHead(String tree, List<String> parents) {}

  /**
   * The entries of a raw tree whose object ids are {@code idBytes} long; null if it does not parse.
   */
  public static List<TreeEntry> tree(byte[] raw, int idBytes) {
    List<TreeEntry> out = new ArrayList<>();
    int i = 0;
    while (i < raw.length) {
      int space = indexOf(raw, (byte) ' ', i);
      int nul = space < 0 ? -1 : indexOf(raw, (byte) 0, space);
      if (nul < 0 || nul + 1 + idBytes > raw.length) {
        return null;
      }
      out.add(
          new TreeEntry(
              new String(raw, i, space - i, StandardCharsets.US_ASCII),
              new String(raw, space + 1, nul - space - 1, StandardCharsets.UTF_8),
              HexFormat.of().formatHex(raw, nul + 1, nul + 1 + idBytes)));
      i = nul + 1 + idBytes;
    }
    return out;
  }

  /**
   * The tree and parents of a commit: its {@code tree} line, then the {@code parent} lines right
   * after it, as git reads them; null when they do not parse.
   */
  public static CommitHead commit(byte[] data) {
    String[] lines = new String(data, StandardCharsets.UTF_8).split("\n", -1);
    if (lines.length < 2 || !lines[0].startsWith("tree ")) {
      return null;
    }
    String tree = lines[0].substring("tree ".length());
    if (!NAME.matcher(tree).matches()) {
      return null;
    }
    List<String> parents = new ArrayList<>();
    for (int i = 1; i < lines.length && lines[i].startsWith("parent "); i++) {
      String p = lines[i].substring("parent ".length());
      if (!NAME.matcher(p).matches()) {
        return null;
      }
      parents.add(p);
    }
    return new CommitHead(tree, List.copyOf(parents));
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
