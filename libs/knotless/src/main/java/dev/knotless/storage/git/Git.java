package dev.knotless.storage.git;

import dev.knotless.storage.Threads;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Runs the system {@code git} against one repository ({@code GIT_DIR}), with an argument list,
 * never a shell string. Failures throw {@link GitException} naming the command and git's stderr.
 * Thread-safe: each call is its own process.
 */
public final class Git {
  private final Path gitDir;
  private final Map<String, String> env;

  private final Path workDir;

  private Git(Path gitDir, Map<String, String> env, Path workDir) {
    this.gitDir = gitDir;
    this.env = Map.copyOf(env);
    this.workDir = workDir;
  }

  /** git working on the repository whose git directory is {@code gitDir}. */
  public static Git at(Path gitDir) {
    return new Git(gitDir, Map.of(), null);
  }

  /**
   * git run for a caller other than this process (the resident helper serves many): each git
   * process starts in {@code workDir} with the caller's whole environment over this JVM's, and
   * {@code GIT_DIR} set to {@code gitDir} whatever that environment says.
   */
  public static Git forCaller(Path gitDir, Map<String, String> env, Path workDir) {
    return new Git(gitDir, env, workDir);
  }

  /** The same repository with extra environment, such as a temporary {@code GIT_INDEX_FILE}. */
  public Git withEnv(String name, String value) {
    Map<String, String> e = new LinkedHashMap<>(env);
    e.put(name, value);
    return new Git(gitDir, e, workDir);
  }

  public Path gitDir() {
    return gitDir;
  }

  /** The environment git runs with here, besides this JVM's own. */
  Map<String, String> env() {
    return env;
  }

  /** What a finished git printed and returned. */
  public record Result(int exitCode, byte[] stdout, String stderr) {
    public String out() {
      return new String(stdout, StandardCharsets.UTF_8);
    }
  }

  /**
   * Starts a long-lived git in this repository (such as {@code cat-file --batch-command}) that the
   * caller talks to through its stdin and stdout; its stderr is discarded.
   */
  public Process startQuiet(String... args) throws GitException {
    return start(List.of(args), true);
  }

  /** Starts git in this repository with {@code args}, its streams left to the caller. */
  private Process start(List<String> args) throws GitException {
    return start(args, false);
  }

  /** {@code cat-file --batch-command}, as an object reader starts it ({@link #startQuiet}). */
  public static final List<String> BATCH_COMMAND = List.of("cat-file", "--batch-command");

  /** {@code cat-file --batch-check}, as {@link #missing} runs it when the files cannot say. */
  private static final List<String> BATCH_CHECK = List.of("cat-file", "--batch-check");

  /**
   * {@code rev-list} as {@link #firstMissingReachable} runs it: the tips come on its stdin, and
   * {@code --all} is read after them, so a process started early still sees the refs as they are
   * when it is asked.
   */
  private static final List<String> HOLES =
      List.of("rev-list", "--objects", "--missing=print", "--stdin", "--not", "--all");

  /** A git process {@link #prestart} can start ahead of need. */
  public enum Ahead {
    /** {@code rev-list}, as {@link #firstMissingReachable} runs it. */
    HISTORY(HOLES, false);

    private final List<String> args;
    private final boolean quiet;

    Ahead(List<String> args, boolean quiet) {
      this.args = args;
      this.quiet = quiet;
    }
  }

  /**
   * Starts {@code what}, on other threads, so that when asked they are already up: git reads
   * nothing of the repository's objects or refs before its first question. Each is used at most
   * once, by the first call here that starts the same command; {@link #endPrestarted} ends those
   * never used. Git processes left waiting on their stdin end when this JVM does.
   */
  public void prestart(Ahead... what) {
    for (Ahead a : what) {
      Prestarted.start(
          new Prestarted.Key(gitDir, env, a.args, a.quiet), () -> spawn(a.args, a.quiet));
    }
  }

  /** Ends the processes {@link #prestart} started in this repository that were never used. */
  public void endPrestarted() {
    Prestarted.end(gitDir);
  }

  private Process start(List<String> args, boolean quiet) throws GitException {
    Process p = Prestarted.take(new Prestarted.Key(gitDir, env, List.copyOf(args), quiet));
    return p != null ? p : spawn(args, quiet);
  }

  private Process spawn(List<String> args, boolean quiet) throws GitException {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    pb.environment().put("GIT_DIR", gitDir.toString());
    if (workDir != null) {
      pb.directory(workDir.toFile());
    }
    if (quiet) {
      pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    }
    try {
      return pb.start();
    } catch (IOException e) {
      throw new GitException("could not start git (is it installed?): " + e.getMessage(), -1);
    }
  }

  /** Runs git, feeding {@code stdin} (may be null), and returns whatever it ended with. */
  public Result exec(byte[] stdin, List<String> args) throws IOException {
    Process p = start(args);
    CompletableFuture<byte[]> out = drain(p.getInputStream());
    CompletableFuture<byte[]> err = drain(p.getErrorStream());
    try (OutputStream in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin);
      }
    } catch (IOException e) {
      // git may exit before reading all its input; its exit code and stderr say why.
    }
    try {
      int code = p.waitFor();
      return new Result(code, out.join(), new String(err.join(), StandardCharsets.UTF_8).strip());
    } catch (InterruptedException e) {
      p.destroy();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while git " + args.get(0) + " ran", e);
    }
  }

  /** Writes a process's stdin, as it goes. */
  @FunctionalInterface
  public interface Feed {
    void writeTo(OutputStream stdin) throws IOException;
  }

  /**
   * Runs git while {@code feed} writes its stdin, so git works on the first bytes while the rest
   * are still coming (as {@code index-pack --stdin} does with a pack being downloaded); returns its
   * stdout, failing with git's stderr on a non-zero exit. When the feed fails for its own reasons
   * (its source, not git), git is stopped and the feed's failure is thrown.
   */
  public byte[] pipe(Feed feed, String... args) throws IOException {
    Process p = start(List.of(args));
    CompletableFuture<byte[]> out = drain(p.getInputStream());
    CompletableFuture<byte[]> err = drain(p.getErrorStream());
    Stdin in = new Stdin(p.getOutputStream());
    try {
      feed.writeTo(in);
    } catch (IOException | RuntimeException e) {
      if (in.failure == null) {
        p.destroyForcibly();
        closeQuietly(in);
        throw e;
      }
      // git stopped reading its input: its exit code and stderr say why.
    }
    closeQuietly(in);
    try {
      int code = p.waitFor();
      String stderr = new String(err.join(), StandardCharsets.UTF_8).strip();
      if (code != 0) {
        throw new GitException(
            "git " + String.join(" ", args) + " failed (exit " + code + "): " + stderr, code);
      }
      if (in.failure != null) {
        throw in.failure;
      }
      return out.join();
    } catch (InterruptedException e) {
      p.destroy();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while git " + args[0] + " ran", e);
    }
  }

  /** A process's stdin that remembers whether writing to it failed. */
  private static final class Stdin extends java.io.FilterOutputStream {
    IOException failure;

    Stdin(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        failure = failure == null ? e : failure;
        throw e;
      }
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }
  }

  private static void closeQuietly(OutputStream s) {
    try {
      s.close();
    } catch (IOException e) {
      // git exited before reading all its input: its exit code and stderr say why.
    }
  }

  /** Reads a process's stdout, as it comes. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(InputStream stdout) throws IOException;
  }

  /**
   * Runs git, feeding it {@code stdin}, while {@code reader} works on its stdout as it comes (as a
   * push uploads the first part of a pack while {@code pack-objects} still writes the rest).
   * Returns what the reader made, once git exited 0; fails with git's stderr on a non-zero exit,
   * however much the reader had read. When the reader fails, git is stopped and its failure thrown.
   */
  public <T> T stream(byte[] stdin, Reader<T> reader, String... args) throws IOException {
    Process p = start(List.of(args));
    CompletableFuture<byte[]> err = drain(p.getErrorStream());
    try (OutputStream in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin);
      }
    } catch (IOException e) {
      // git may exit before reading all its input; its exit code and stderr say why.
    }
    T result;
    try (InputStream out = p.getInputStream()) {
      result = reader.read(out);
      out.transferTo(OutputStream.nullOutputStream());
    } catch (IOException | RuntimeException e) {
      p.destroyForcibly();
      throw e;
    }
    try {
      int code = p.waitFor();
      if (code != 0) {
        String stderr = new String(err.join(), StandardCharsets.UTF_8).strip();
        throw new GitException(
            "git " + String.join(" ", args) + " failed (exit " + code + "): " + stderr, code);
      }
      return result;
    } catch (InterruptedException e) {
      p.destroy();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while git " + args[0] + " ran", e);
    }
  }

  /** Runs git and returns its stdout, failing with git's stderr on a non-zero exit. */
  public byte[] run(byte[] stdin, String... args) throws IOException {
    return run(stdin, List.of(args));
  }

  public byte[] run(byte[] stdin, List<String> args) throws IOException {
    Result r = exec(stdin, args);
    if (r.exitCode() != 0) {
      throw new GitException(
          "git " + String.join(" ", args) + " failed (exit " + r.exitCode() + "): " + r.stderr(),
          r.exitCode());
    }
    return r.stdout();
  }

  /** Runs git and returns its stdout as trimmed text. */
  public String text(String... args) throws IOException {
    return new String(run(null, args), StandardCharsets.UTF_8).strip();
  }

  /** Which of {@code shas} this repository lacks, by {@code git cat-file --batch-check}. */
  public Set<String> missing(Collection<String> shas) throws IOException {
    Set<String> out = new HashSet<>();
    if (shas.isEmpty()) {
      return out;
    }
    java.util.Optional<Set<String>> fromFiles = ObjectFiles.missing(gitDir, env, shas);
    if (fromFiles.isPresent()) {
      return fromFiles.get();
    }
    StringBuilder in = new StringBuilder();
    for (String s : shas) {
      in.append(s).append('\n');
    }
    String text =
        new String(
            run(in.toString().getBytes(StandardCharsets.UTF_8), BATCH_CHECK),
            StandardCharsets.UTF_8);
    for (String line : text.split("\n")) {
      if (line.endsWith(" missing")) {
        out.add(line.substring(0, line.length() - " missing".length()));
      }
    }
    return out;
  }

  /**
   * The first object that {@code tips} reach and this repository lacks, walking only what no local
   * ref already reaches; empty when the history is complete.
   */
  public java.util.Optional<String> firstMissingReachable(Collection<String> tips)
      throws IOException {
    if (tips.isEmpty()) {
      return java.util.Optional.empty();
    }
    StringBuilder in = new StringBuilder();
    for (String tip : tips) {
      in.append(tip).append('\n');
    }
    Result r = exec(in.toString().getBytes(StandardCharsets.UTF_8), HOLES);
    for (String line : r.out().split("\n")) {
      if (line.startsWith("?")) {
        return java.util.Optional.of(line.substring(1).strip());
      }
    }
    if (r.exitCode() != 0) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("[0-9a-f]{40}").matcher(r.stderr());
      return java.util.Optional.of(m.find() ? m.group() : "(an object: " + r.stderr() + ")");
    }
    return java.util.Optional.empty();
  }

  /** Whether the object exists locally. */
  public boolean has(String sha) throws IOException {
    return missing(List.of(sha)).isEmpty();
  }

  /** Whether {@code ancestor} is an ancestor of (or equal to) {@code descendant}. */
  public boolean isAncestor(String ancestor, String descendant) throws IOException {
    Result r = exec(null, List.of("merge-base", "--is-ancestor", ancestor, descendant));
    if (r.exitCode() == 0) {
      return true;
    }
    if (r.exitCode() == 1) {
      return false;
    }
    throw new GitException("git merge-base --is-ancestor failed: " + r.stderr(), r.exitCode());
  }

  /** Resolves a revision to an object id, or throws naming it. */
  public String revParse(String rev) throws IOException {
    Result r = exec(null, List.of("rev-parse", "--verify", "--quiet", rev));
    if (r.exitCode() != 0) {
      throw new GitException("no such revision in " + gitDir + ": " + rev, r.exitCode());
    }
    return r.out().strip();
  }

  /** Every ref and its target, {@code git for-each-ref}. */
  public Map<String, String> refs() throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    String text = text("for-each-ref", "--format=%(objectname) %(refname)");
    for (String line : text.split("\n")) {
      if (!line.isBlank()) {
        int sp = line.indexOf(' ');
        out.put(line.substring(sp + 1), line.substring(0, sp));
      }
    }
    return out;
  }

  private static CompletableFuture<byte[]> drain(InputStream in) {
    return Threads.async(
        () -> {
          try (in) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            in.transferTo(buf);
            return buf.toByteArray();
          }
        });
  }
}
