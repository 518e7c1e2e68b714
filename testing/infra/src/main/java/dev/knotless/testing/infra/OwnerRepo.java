package dev.knotless.testing.infra;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An owner at work, for the services' tests and the distributed harness: commits made with plain
 * {@code git} in a working tree, pushed in-process with the storage library's {@link Pusher} (the
 * code {@code git-remote-knotless} runs), so a push is the same records a terminal push writes,
 * without a JVM start per push.
 */
public final class OwnerRepo {
  public final Account account;
  public final XrpcClient client;
  public final RepoAddress address;

  /** The owner's space client, for a private repository (else null). */
  public final dev.knotless.atproto.space.XrpcSpaceClient spaces;

  /** The private repository's space (else null). */
  public final dev.knotless.atproto.space.SpaceId space;

  private final Path work;
  private final Pusher pusher;

  public OwnerRepo(Account account, java.net.URI pds, String name, Path dir) throws IOException {
    this(account, password(account, pds), pds, null, name, dir);
  }

  private OwnerRepo(
      Account account,
      XrpcClient client,
      java.net.URI pds,
      java.net.URI spaceHost,
      String name,
      Path dir)
      throws IOException {
    this.account = account;
    this.client = client;
    this.address = new RepoAddress(account.did(), account.handle(), pds, name);
    this.work = dir.resolve("work");
    Files.createDirectories(work);
    StorageCache cache = StorageCache.at(dir.resolve("cache"), Clock.systemUTC());
    dev.knotless.atproto.RecordStore store = client;
    if (spaceHost == null) {
      spaces = null;
      space = null;
    } else {
      spaces =
          new dev.knotless.atproto.space.XrpcSpaceClient(
              XrpcClient.create(spaceHost), client, Clock.systemUTC());
      space = new dev.knotless.atproto.space.SpaceId(account.did(), name);
      store = new dev.knotless.atproto.space.SpaceRecords(spaces, space, spaceHost);
    }
    this.pusher = new Pusher(store, cache, Clock.systemUTC(), Settings.defaults().claimGrace());
    git("init", "-q", "-b", "main");
  }

  /**
   * The private repository {@code name}, made already ({@code knotless create --private}) in the
   * owner's space of that name on {@code spaceHost}: pushed into the owner's repo there, as the
   * owner logged in with OAuth (the harness PDS gives a password no token for a space).
   */
  public static OwnerRepo inSpace(
      Account account,
      dev.knotless.testing.PdsInstance pds,
      java.net.URI spaceHost,
      String name,
      Path dir)
      throws IOException {
    return new OwnerRepo(
        account, HarnessOAuth.client(pds, account), pds.pdsUrl(), spaceHost, name, dir);
  }

  private static XrpcClient password(Account account, java.net.URI pds) throws IOException {
    XrpcClient c = XrpcClient.create(pds);
    c.login(account.handle(), account.password());
    return c;
  }

  /** Has a push that makes the repository write {@code runners} into its record. */
  public OwnerRepo namingRunners(Pusher.NewRepoRunners runners) {
    pusher.namingRunners(runners);
    return this;
  }

  /** The label a runner names it by: {@code <handle>/<name>}. */
  public String label() {
    return account.handle() + "/" + address.name();
  }

  /** Writes the files (a null content deletes one) and commits them on the current branch. */
  public String commit(Map<String, String> files) throws IOException {
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = work.resolve(f.getKey());
      if (f.getValue() == null) {
        git("rm", "-q", f.getKey());
        continue;
      }
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
      git("add", f.getKey());
    }
    git("commit", "-q", "--allow-empty", "-m", "change " + String.join(", ", files.keySet()));
    return head();
  }

  /** The working tree, for another account's clone to fetch from (as a fork starts). */
  public Path workTree() {
    return work;
  }

  /** The current branch's commit. */
  public String head() throws IOException {
    return git("rev-parse", "HEAD").strip();
  }

  /** Pushes the current branch's commit to {@code refs/heads/<branch>}, forced. */
  public String push(String branch) throws IOException {
    String sha = head();
    PushResult r =
        pusher.push(
            address,
            Git.at(work.resolve(".git")),
            List.of(new RefUpdate("refs/heads/" + branch, sha, true)));
    if (!r.allOk()) {
      throw new IOException("push of " + branch + " failed: " + r);
    }
    return sha;
  }

  /** The repository's key, from its record. */
  public String key() throws IOException {
    if (spaces != null) {
      return spaces
          .getRecord(space, account.did(), "dev.knotless.repo", address.name())
          .orElseThrow(() -> new IOException("no repository " + address.name() + " in " + space))
          .value()
          .path("key")
          .asText();
    }
    return client
        .getRecord(account.did(), "dev.knotless.repo", address.name())
        .value()
        .path("key")
        .asText();
  }

  /** Runs git in the working tree as the owner; returns what it printed. */
  public String git(String... args) throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of("git", "-c", "user.name=Owner", "-c", "user.email=owner@example.test"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true);
    pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    pb.environment().put("HOME", work.getParent().toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IOException("git " + String.join(" ", args) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return out;
  }
}
