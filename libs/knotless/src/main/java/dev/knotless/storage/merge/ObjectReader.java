package dev.knotless.storage.merge;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.git.ObjectText;
import dev.knotless.storage.git.StoredObjects;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
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
      ObjectText.CommitHead head = ObjectText.commit(commit.get().data());
      return head == null ? null : fromFiles(head.tree());
    }
    return null;
  }

  /** The entries of tree {@code name}, or null when there is no such object or it is no tree. */
  List<ObjectText.TreeEntry> tree(String name) throws IOException {
    Info info = info(name);
    if (info == null || !info.type().equals("tree")) {
      return null;
    }
    List<ObjectText.TreeEntry> entries =
        ObjectText.tree(contents(info.oid()), info.oid().length() / 2);
    if (entries == null) {
      throw new IOException("tree " + info.oid() + " does not parse");
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
