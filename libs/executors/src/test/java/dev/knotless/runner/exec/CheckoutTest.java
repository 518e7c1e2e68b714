package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's checkout is made while the mirror it is cloned from may be written: a fetch into the
 * mirror makes and removes lock files under its objects, as a full suite once saw ("failed to copy
 * file to '.../commit-graph-chain.lock': No such file or directory").
 */
class CheckoutTest {

  private static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
    return out.strip();
  }

  @Test
  void aCloneWhileTheMirrorsLockFilesComeAndGoStillMakesTheCheckout(@TempDir Path tmp)
      throws Exception {
    Path work = tmp.resolve("work");
    Files.createDirectories(work);
    git(work, "init", "-q");
    for (int i = 0; i < 200; i++) {
      Files.writeString(work.resolve("f" + i + ".txt"), "file " + i + "\n");
    }
    git(work, "add", ".");
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one");
    String commit = git(work, "rev-parse", "HEAD");
    Path mirror = tmp.resolve("mirror.git");
    git(tmp, "clone", "-q", "--mirror", work.toString(), mirror.toString());
    Path graphs = mirror.resolve("objects/info/commit-graphs");
    Files.createDirectories(graphs);

    // A writer busy in bursts, as fetches are: each burst makes and removes lock files for 30 ms.
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer =
        new Thread(
            () -> {
              int n = 0;
              while (!stop.get()) {
                long burst = System.nanoTime() + 30_000_000L;
                while (System.nanoTime() < burst) {
                  Path lock = graphs.resolve("commit-graph-chain.lock");
                  try {
                    Files.writeString(lock, "x" + n++);
                    Files.deleteIfExists(lock);
                  } catch (java.io.IOException ignored) {
                    // The clone may be reading the directory; the next round writes again.
                  }
                }
                try {
                  Thread.sleep(70);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    writer.start();
    int made = 0;
    try {
      for (int i = 0; i < 30; i++) {
        Path checkout = tmp.resolve("checkout-" + i);
        Checkout.make(mirror, commit, checkout, tmp.resolve("git-" + i + ".out"), false);
        assertTrue(Files.exists(checkout.resolve("f199.txt")), "checked out");
        made++;
      }
    } finally {
      stop.set(true);
      writer.join();
    }
    assertEquals(30, made);
  }

  @Test
  void onlyAFileGoneMidCopyIsTriedAgain() {
    assertTrue(
        Checkout.vanishedMidCopy(
            "could not clone the mirror m: git exited with 128: fatal: failed to copy file to"
                + " 'c/.git/objects/info/commit-graphs/commit-graph-chain.lock': No such file or"
                + " directory"));
    assertFalse(
        Checkout.vanishedMidCopy(
            "could not clone the mirror m: git exited with 128: fatal: failed to create link"
                + " 'c/.git/objects/12/34': Invalid cross-device link"));
  }
}
