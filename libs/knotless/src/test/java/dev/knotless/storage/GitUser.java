package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A person at a terminal: plain {@code git} with bin/ on PATH, logged in as one account. */
final class GitUser {
  private final Map<String, String> env = new HashMap<>();

  GitUser(PdsInstance pds, Account account, Path home) throws IOException {
    Files.createDirectories(home);
    env.putAll(pds.environment());
    String bin = System.getProperty("knotless.bin");
    if (bin == null) {
      bin = Path.of("../../bin").toAbsolutePath().normalize().toString();
    }
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("HOME", home.toString());
    env.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    env.put("KNOTLESS_CACHE_DIR", home.resolve("cache").toString());
    env.put("KNOTLESS_CONFIG_DIR", home.resolve("config").toString());
    env.put("KNOTLESS_COMPACT", "off");
    // A JVM per operation; ResidentHelperIT runs git through the resident helper, and stops it.
    env.put("KNOTLESS_HELPER_DAEMON", "off");
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_AUTHOR_NAME", "Test Person");
    env.put("GIT_AUTHOR_EMAIL", "person@example.test");
    env.put("GIT_COMMITTER_NAME", "Test Person");
    env.put("GIT_COMMITTER_EMAIL", "person@example.test");
    if (account != null) {
      env.put("KNOTLESS_IDENTIFIER", account.handle());
      env.put("KNOTLESS_PASSWORD", account.password());
    }
  }

  GitUser with(String name, String value) {
    env.put(name, value);
    return this;
  }

  GitUser without(String name) {
    env.remove(name);
    return this;
  }

  Map<String, String> env() {
    return env;
  }

  record Run(int exit, String out, String err) {}

  /** One of the owner tools' commands, as the command line would call it. */
  interface Tool {
    int run(dev.knotless.storage.cli.CliContext ctx) throws IOException;
  }

  /**
   * Runs an owner tool's command in this JVM with this person's environment. The command line
   * itself (tools/knotless-cli) is built after this module, so its parsing is tested there; here
   * the command's decisions are, with the exit code and the words the command line would print.
   */
  Run tool(Tool tool) {
    var out = new java.io.ByteArrayOutputStream();
    var err = new java.io.ByteArrayOutputStream();
    Map<String, String> seen = Map.copyOf(env);
    try (var o = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
        var e = new java.io.PrintStream(err, true, StandardCharsets.UTF_8)) {
      int exit;
      try {
        exit =
            tool.run(
                new dev.knotless.storage.cli.CliContext(
                    seen, o, e, () -> KnotlessRepos.fromEnvironment(seen)));
      } catch (dev.knotless.storage.cli.UsageException ex) {
        e.println("knotless: " + ex.getMessage());
        exit = 2;
      } catch (IOException | RuntimeException ex) {
        e.println("knotless: " + ex.getMessage());
        exit = 1;
      }
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
  }

  Run exec(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(args[0].equals("knotless") ? "knotless" : "git");
    for (int i = args[0].equals("knotless") ? 1 : 0; i < args.length; i++) {
      cmd.add(args[i]);
    }
    if (cmd.get(0).equals("knotless")) {
      cmd.set(0, env.get("PATH").split(":")[0] + "/knotless");
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    var out = p.getInputStream().readAllBytes();
    var err = p.getErrorStream().readAllBytes();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("timed out: " + cmd);
    }
    return new Run(
        p.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }

  /** Runs and expects success; returns stdout. */
  String ok(Path dir, String... args) throws IOException, InterruptedException {
    Run r = exec(dir, args);
    if (r.exit() != 0) {
      fail(String.join(" ", args) + " failed (" + r.exit() + "):\n" + r.out() + r.err());
    }
    return r.out();
  }

  /** Runs and expects failure; returns stdout and stderr together. */
  String fails(Path dir, String... args) throws IOException, InterruptedException {
    Run r = exec(dir, args);
    if (r.exit() == 0) {
      fail(String.join(" ", args) + " unexpectedly succeeded:\n" + r.out() + r.err());
    }
    return r.out() + r.err();
  }

  /** A new repository with one commit of {@code file}. */
  Path newRepo(Path dir, String file, String content) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    ok(dir, "init", "-q", "-b", "main");
    commit(dir, file, content);
    return dir;
  }

  String commit(Path dir, String file, String content) throws IOException, InterruptedException {
    Path f = dir.resolve(file);
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
    ok(dir, "add", file);
    ok(dir, "commit", "-q", "-m", "change " + file);
    return ok(dir, "rev-parse", "HEAD").strip();
  }
}
