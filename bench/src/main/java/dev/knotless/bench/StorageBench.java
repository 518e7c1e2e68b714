package dev.knotless.bench;

import dev.knotless.storage.push.PushResult;
import dev.knotless.testing.Account;
import dev.knotless.testing.HelperDaemons;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * What storing a repository as records costs next to plain git, over the local reference PDS: (a) a
 * push and a clone of a generated 10 MB repository with plain {@code git} through {@code
 * git-remote-knotless}; (b) the same push and clone against a local bare repository, the floor; (c)
 * reading the snapshot of a repository with 590 refs, the snapshot reader against pages one after
 * another, at several added latencies ({@link ManyRefsRead}). Prints a table; asserts nothing. Run:
 * {@code bin/bench Storage [repetitions (5)] [refs]}; {@code refs} runs (c) alone.
 */
public final class StorageBench {
  private static final Path ROOT =
      Path.of(System.getProperty("knotless.repo.root", ".")).toAbsolutePath();

  private StorageBench() {}

  public static void main(String[] args) throws Exception {
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String part = args.length > 1 ? args[1] : "all";
    if (!List.of("all", "git", "refs").contains(part)) {
      throw new IllegalArgumentException("the part is all, git or refs, not " + part);
    }
    Path tmp = Files.createTempDirectory("knotless-storage-bench");
    List<String[]> rows = new ArrayList<>();
    System.out.println("load before: " + uptime());
    try (PdsInstance pds = PdsInstance.start(PdsOptions.defaults())) {
      if (!part.equals("refs")) {
        Path work = tmp.resolve("work");
        String size = generate(work);
        System.out.println("repository: " + size);
        rows.addAll(pushesAndClones(pds, work, tmp, reps));
      }
      if (!part.equals("git")) {
        rows.addAll(ManyRefsRead.rows(pds, tmp.resolve("refs"), Math.max(reps, 9)));
      }
    }
    System.out.println("load after: " + uptime());
    System.out.printf("%-52s %12s %9s %11s%n", "measure", "time", "requests", "round trips");
    for (String[] r : rows) {
      System.out.printf("%-52s %12s %9s %11s%n", (Object[]) r);
    }
  }

  // ---- the repository ---------------------------------------------------------------------------

  /**
   * Writes a deterministic repository of about 10 MB in five commits: 300 text files of words drawn
   * from a made-up vocabulary (about 20 KB each) and eight binary blobs of 512 KiB of noise, with
   * later commits editing earlier text files. Returns a one-line description.
   */
  static String generate(Path work) throws Exception {
    Files.createDirectories(work);
    git(work, Map.of(), "init", "-q", "-b", "main");
    Random random = new Random(20261129L);
    String[] words = new String[2000];
    for (int i = 0; i < words.length; i++) {
      StringBuilder w = new StringBuilder();
      int len = 2 + random.nextInt(9);
      for (int j = 0; j < len; j++) {
        w.append((char) ('a' + random.nextInt(26)));
      }
      words[i] = w.toString();
    }
    long bytes = 0;
    for (int commit = 0; commit < 5; commit++) {
      for (int f = commit * 60; f < (commit + 1) * 60; f++) {
        bytes += writeText(work.resolve("src/d" + (f % 12) + "/file" + f + ".txt"), words, random);
      }
      if (commit > 0) {
        // Edit some earlier files, so history holds deltas and not only new objects.
        for (int e = 0; e < 20; e++) {
          int f = random.nextInt(commit * 60);
          Path p = work.resolve("src/d" + (f % 12) + "/file" + f + ".txt");
          Files.writeString(
              p, "edited in commit " + commit + "\n" + Files.readString(p), StandardCharsets.UTF_8);
        }
      }
      for (int b = 0; b < (commit < 3 ? 2 : 1); b++) {
        byte[] blob = new byte[512 * 1024];
        random.nextBytes(blob);
        Path p = work.resolve("assets/blob-" + commit + "-" + b + ".bin");
        Files.createDirectories(p.getParent());
        Files.write(p, blob);
        bytes += blob.length;
      }
      git(work, Map.of(), "add", "-A");
      git(work, Map.of(), "commit", "-q", "-m", "commit " + commit);
    }
    String objects = git(work, Map.of(), "count-objects", "-v").replace('\n', ' ').trim();
    return String.format("%.1f MB written in 5 commits; %s", bytes / 1e6, objects);
  }

  private static long writeText(Path p, String[] words, Random random) throws IOException {
    Files.createDirectories(p.getParent());
    StringBuilder s = new StringBuilder();
    while (s.length() < 20_000) {
      for (int i = 0; i < 12; i++) {
        s.append(words[random.nextInt(words.length)]).append(i == 11 ? '\n' : ' ');
      }
    }
    Files.writeString(p, s, StandardCharsets.UTF_8);
    return s.length();
  }

  // ---- (a) and (b): push and clone with plain git
  // ------------------------------------------------

  /**
   * Each repetition pushes and clones through the helper, then to and from a bare repository (the
   * floor), so that both see the machine as it is then; each pair's ratio is printed too.
   */
  static List<String[]> pushesAndClones(PdsInstance pds, Path work, Path tmp, int reps)
      throws Exception {
    Account owner = pds.createAccount("sbench");
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("PATH", ROOT.resolve("bin") + ":" + System.getenv("PATH"));
    env.put("KNOTLESS_IDENTIFIER", owner.handle());
    env.put("KNOTLESS_PASSWORD", owner.password());
    env.put("KNOTLESS_COMPACT", "off");
    // The resident helper's address file, and its log, here; it is stopped at the end.
    Path helperDir = tmp.resolve("helper");
    env.put("KNOTLESS_HELPER_DIR", helperDir.toString());
    // KNOTLESS_TRACE=1 bin/bench Storage prints the helper's timed trace of every push and clone.
    String trace = System.getenv("KNOTLESS_TRACE");
    if (trace != null) {
      env.put("KNOTLESS_TRACE", trace);
    }
    Path dir = tmp.resolve("knotless");
    Path bareDir = tmp.resolve("bare");
    Files.createDirectories(bareDir);
    String head = git(work, Map.of(), "rev-parse", "HEAD").trim();
    Map<String, List<Long>> times = new java.util.LinkedHashMap<>();
    try {
      for (int i = 0; i < reps; i++) {
        // A new repository and a fresh cache each time: every push is a first push of everything.
        // Through the resident helper (its first run starts it), then with a JVM per operation.
        for (String how : List.of("resident", "own JVM")) {
          Map<String, String> e = new HashMap<>(env);
          e.put("KNOTLESS_HELPER_DAEMON", how.equals("resident") ? "on" : "off");
          String name = "bench-" + i + (how.equals("resident") ? "" : "-own");
          String url = "knotless://" + owner.handle() + "/" + name;
          e.put("KNOTLESS_CACHE_DIR", dir.resolve("cache-push-" + name).toString());
          long t0 = System.nanoTime();
          String out = git(work, e, "push", "-q", url, "main");
          times.computeIfAbsent("push " + how, k -> new ArrayList<>()).add(System.nanoTime() - t0);
          printTrace("push " + how + " " + i, out);
          e.put("KNOTLESS_CACHE_DIR", dir.resolve("cache-clone-" + name).toString());
          Path clone = dir.resolve("clone-" + name);
          t0 = System.nanoTime();
          out = git(dir, e, "clone", "-q", url, clone.toString());
          times.computeIfAbsent("clone " + how, k -> new ArrayList<>()).add(System.nanoTime() - t0);
          printTrace("clone " + how + " " + i, out);
          checkHead(clone, head);
        }

        Path bare = bareDir.resolve("floor-" + i + ".git");
        git(bareDir, Map.of(), "init", "-q", "--bare", "-b", "main", bare.toString());
        long t0 = System.nanoTime();
        git(work, Map.of(), "push", "-q", bare.toString(), "main");
        times.computeIfAbsent("push floor", k -> new ArrayList<>()).add(System.nanoTime() - t0);
        Path bareClone = bareDir.resolve("clone-" + i);
        t0 = System.nanoTime();
        // file:// makes git pack and index as over a network, not hard-link the object files.
        git(bareDir, Map.of(), "clone", "-q", "file://" + bare, bareClone.toString());
        times.computeIfAbsent("clone floor", k -> new ArrayList<>()).add(System.nanoTime() - t0);
        checkHead(bareClone, head);
        int at = i;
        long pushFloor = times.get("push floor").get(i);
        long cloneFloor = times.get("clone floor").get(i);
        System.out.printf(
            "  repetition %d: push %s (floor %d ms), clone %s (floor %d ms)%n",
            i,
            ratios(times, "push", at, pushFloor),
            pushFloor / 1_000_000,
            ratios(times, "clone", at, cloneFloor),
            cloneFloor / 1_000_000);
      }
    } finally {
      HelperDaemons.stopAll(helperDir);
    }
    return List.of(
        row("push 10 MB, git via the resident helper", times.get("push resident")),
        row("clone 10 MB, git via the resident helper", times.get("clone resident")),
        row("push 10 MB, git via the helper in its own JVM", times.get("push own JVM")),
        row("clone 10 MB, git via the helper in its own JVM", times.get("clone own JVM")),
        row("push 10 MB, git to a local bare repo (floor)", times.get("push floor")),
        row("clone 10 MB, git from a local bare repo (floor)", times.get("clone floor")));
  }

  private static String ratios(Map<String, List<Long>> times, String op, int i, long floor) {
    StringBuilder s = new StringBuilder();
    for (String how : List.of("resident", "own JVM")) {
      long t = times.get(op + " " + how).get(i);
      s.append(s.length() == 0 ? "" : ", ")
          .append(String.format("%s %d ms %.2fx", how, t / 1_000_000, (double) t / floor));
    }
    return s.toString();
  }

  private static void printTrace(String what, String gitOutput) {
    gitOutput
        .lines()
        .filter(l -> l.startsWith("knotless trace: "))
        .forEach(
            l ->
                System.out.println(
                    "    " + what + ": " + l.substring("knotless trace: ".length())));
  }

  private static void checkHead(Path clone, String head) throws Exception {
    String got = git(clone, Map.of(), "rev-parse", "HEAD").trim();
    if (!got.equals(head)) {
      throw new IllegalStateException("clone " + clone + " is at " + got + ", not " + head);
    }
  }

  // ---- helpers
  // -----------------------------------------------------------------------------------

  static void expectOk(PushResult result) {
    if (!result.allOk()) {
      throw new IllegalStateException("setup push refused: " + result.outcomes());
    }
  }

  static String[] row(String label, List<Long> nanos) {
    List<Long> sorted = nanos.stream().sorted().toList();
    long median = sorted.get(sorted.size() / 2);
    String time =
        median >= 1_000_000_000L
            ? String.format("%.2f s", median / 1e9)
            : String.format("%d ms", median / 1_000_000);
    String[] r = {label, time + " (med " + nanos.size() + ")", "", ""};
    System.out.println(
        "  " + label + ": " + r[1] + " " + nanos.stream().map(n -> n / 1_000_000 + "ms").toList());
    return r;
  }

  private static String uptime() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim() + " (1, 5, 15 min load)";
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** Runs git in {@code dir} with extra environment; the environment keeps secrets off argv. */
  static String git(Path dir, Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    pb.environment().putAll(IDENTITY);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          "git " + String.join(" ", Stream.of(args).limit(3).toList()) + " failed: " + out);
    }
    return out;
  }

  /** Fixed author and dates, so the generated repository has the same commits every run. */
  private static final Map<String, String> IDENTITY =
      Map.of(
          "GIT_AUTHOR_NAME", "Bench",
          "GIT_AUTHOR_EMAIL", "bench@knotless.invalid",
          "GIT_COMMITTER_NAME", "Bench",
          "GIT_COMMITTER_EMAIL", "bench@knotless.invalid",
          "GIT_AUTHOR_DATE", "1796040000 +0000",
          "GIT_COMMITTER_DATE", "1796040000 +0000");
}
