package dev.knotless.storage.merge;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.git.StoredObjects;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers many questions about objects, so a pass reading a commit's workflows and the paths a push
 * changed starts no git process at all where the repository's files answer ({@link StoredObjects}),
 * and at most one {@code git cat-file --batch-command} for what they do not: an object they lack (a
 * sync still writing), a tag to peel, an object too big to read here. Not thread-safe: one caller
 * at a time; close it when done.
 */
final class ObjectReader implements AutoCloseable {

  /** An object's type and size, as {@code info} gives them. */
  record Info(String oid, String type, long size) {}

  /** One entry of a tree: its mode, name and object id. */
  record Entry(String mode, String name, String oid) {
    boolean tree() {
      return mode.equals("40000");
    }

    boolean submodule() {
      return mode.equals("160000");
    }
  }

  private final Git git;
  private final StoredObjects files;
  private Process process;
  private OutputStream in;
  private InputStream out;

  private ObjectReader(Git git, StoredObjects files) {
    this.git = git;
    this.files = files;
  }

  /**
   * A reader of {@code git}'s repository: from its files in this JVM where they answer ({@link
   * StoredObjects}), else from a {@code cat-file --batch-command} started when first needed.
   */
  static ObjectReader open(Git git) {
    return new ObjectReader(git, StoredObjects.open(git).orElse(null));
  }

  /** The object's type and size, or null when there is no such object. */
  Info info(String name) throws IOException {
    Info found = fromFiles(name);
    if (found != null) {
      return found;
    }
    ask("info " + name);
    return header(name);
  }

  /** The object's content, or null when there is no such object. */
  byte[] contents(String name) throws IOException {
    if (files != null) {
      var o = files.read(name);
      if (o.isPresent()) {
        return o.get().data();
      }
    }
    ask("contents " + name);
    Info info = header(name);
    if (info == null) {
      return null;
    }
    byte[] body = out.readNBytes(Math.toIntExact(info.size()));
    if (body.length != info.size() || out.read() != '\n') {
      throw new IOException("git cat-file ended in the middle of " + name);
    }
    return body;
  }

  /**
   * {@code name} (an object name, or one followed by {@code ^{commit}} or {@code ^{tree}}) as the
   * files answer it; null when git should be asked (a tag to peel, an object not found there).
   */
  private Info fromFiles(String name) throws IOException {
    if (files == null) {
      return null;
    }
    int caret = name.indexOf('^');
    String sha = caret < 0 ? name : name.substring(0, caret);
    String peel = caret < 0 ? "" : name.substring(caret);
    var h = files.header(sha);
    if (h.isEmpty()) {
      return null;
    }
    String type = h.get().type();
    if (peel.isEmpty() || peel.equals("^{" + type + "}")) {
      return new Info(sha, type, h.get().size());
    }
    if (peel.equals("^{tree}") && type.equals("commit")) {
      var commit = files.read(sha);
      if (commit.isEmpty()) {
        return null;
      }
      String tree = treeOf(commit.get().data());
      return tree == null ? null : fromFiles(tree);
    }
    return null;
  }

  /** The tree a commit's first line names, or null when it does not read so. */
  private static String treeOf(byte[] commit) {
    int idLength = 40;
    if (commit.length < 5 + idLength + 1 || commit[5 + idLength] != '\n') {
      return null;
    }
    String head = new String(commit, 0, 5 + idLength, StandardCharsets.US_ASCII);
    return head.startsWith("tree ") ? head.substring(5) : null;
  }

  /** The entries of tree {@code name}, or null when there is no such object or it is no tree. */
  List<Entry> tree(String name) throws IOException {
    Info info = info(name);
    if (info == null || !info.type().equals("tree")) {
      return null;
    }
    byte[] raw = contents(info.oid());
    int idLength = info.oid().length() / 2;
    List<Entry> entries = new ArrayList<>();
    int i = 0;
    while (i < raw.length) {
      int space = indexOf(raw, (byte) ' ', i);
      int nul = indexOf(raw, (byte) 0, space);
      if (space < 0 || nul < 0 || nul + 1 + idLength > raw.length) {
        throw new IOException("tree " + info.oid() + " does not parse");
      }
      String mode = new String(raw, i, space - i, StandardCharsets.US_ASCII);
      String entryName = new String(raw, space + 1, nul - space - 1, StandardCharsets.UTF_8);
      entries.add(new Entry(mode, entryName, hex(raw, nul + 1, idLength)));
      i = nul + 1 + idLength;
    }
    return entries;
  }

  private void ask(String command) throws IOException {
    if (command.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("an object name holds a newline: " + command);
    }
    if (process == null) {
      process = git.startQuiet(Git.BATCH_COMMAND.toArray(String[]::new));
      in = process.getOutputStream();
      out = new BufferedInputStream(process.getInputStream());
    }
    in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private Info header(String name) throws IOException {
    String line = line();
    if (line == null) {
      throw new IOException("git cat-file --batch-command gave no answer for " + name);
    }
    String[] f = line.split(" ");
    if (f.length == 3 && !f[2].equals("missing")) {
      return new Info(f[0], f[1], Long.parseLong(f[2]));
    }
    if (line.endsWith(" missing")) {
      return null;
    }
    throw new IOException("git cat-file: " + line);
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = out.read()) != '\n') {
      if (c < 0) {
        return b.size() == 0 ? null : b.toString(StandardCharsets.UTF_8);
      }
      b.write(c);
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  private static int indexOf(byte[] a, byte b, int from) {
    if (from < 0) {
      return -1;
    }
    for (int i = from; i < a.length; i++) {
      if (a[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static String hex(byte[] a, int from, int length) {
    return java.util.HexFormat.of().formatHex(a, from, from + length);
  }

  @Override
  public void close() {
    if (files != null) {
      files.close();
    }
    if (process == null) {
      return;
    }
    try {
      in.close();
    } catch (IOException e) {
      // It may have ended already.
    }
    try {
      if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
