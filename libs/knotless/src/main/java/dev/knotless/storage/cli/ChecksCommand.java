package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code knotless checks <url> [--ref R]}: the checks of the runners the repository record names,
 * read from each runner's own account with one prefix scan per runner. Checks by accounts the
 * record does not name are never read, since anyone can write a check about any repository.
 */
public final class ChecksCommand {
  /** The check record's collection. */
  static final String COLLECTION = "dev.knotless.check";

  private ChecksCommand() {}

  /**
   * Prints {@code url}'s checks, of one ref (a branch name or a full ref) or, when {@code ref} is
   * null, of all; returns the exit code.
   */
  public static int run(String url, String ref0, CliContext ctx) throws IOException {
    String ref = fullRef(ref0);
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    JsonNode record = RunnersCommand.read(repos.reader(repo), repo).value();
    String key = record.path("key").asText("");
    if (key.isEmpty()) {
      throw new IOException(repo.url() + "'s record has no key");
    }
    List<String> runners = RunnersCommand.runners(record);
    if (runners.isEmpty()) {
      ctx.out().println(repo.url() + " names no runners: knotless runners <url> add <did>");
      return 0;
    }
    String prefix = prefix(repo.did(), key, ref);
    IdentityResolver identities =
        IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local());
    List<String[]> rows = new ArrayList<>();
    for (String runner : runners) {
      Identity id = identities.resolve(runner);
      for (Record r : list(XrpcClient.create(id.pds()), id.did(), prefix)) {
        JsonNode v = r.value();
        rows.add(
            new String[] {
              v.path("workflow").asText(""),
              v.path("ref").asText(""),
              shortSha(v.path("commit").asText("")),
              v.path("status").asText(""),
              v.path("note").asText("")
            });
      }
    }
    print(ctx.out(), rows);
    return 0;
  }

  /**
   * The record-key prefix of a repository's checks, or of one ref's: {@code <h(owner did)>.<repo
   * key>.[<h(ref)>.]}, as the runner keys them.
   */
  static String prefix(String ownerDid, String repoKey, String ref) {
    String p = Hashes.h(ownerDid) + "." + repoKey + ".";
    return ref == null ? p : p + Hashes.h(ref) + ".";
  }

  static String fullRef(String ref) {
    if (ref == null) {
      return null;
    }
    if (ref.isBlank()) {
      throw new UsageException("--ref needs a branch name or a full ref");
    }
    return ref.startsWith("refs/") ? ref : "refs/heads/" + ref;
  }

  /** Every record under {@code prefix} in {@code did}'s checks: one listRecords scan. */
  static List<Record> list(XrpcClient client, String did, String prefix) throws IOException {
    return dev.knotless.storage.merge.PullReader.scan(client, did, COLLECTION, prefix);
  }

  private static String shortSha(String sha) {
    return sha.length() > 12 ? sha.substring(0, 12) : sha;
  }

  private static void print(PrintStream out, List<String[]> rows) {
    if (rows.isEmpty()) {
      out.println("no checks yet");
      return;
    }
    String[] head = {"WORKFLOW", "REF", "COMMIT", "STATUS", "NOTE"};
    int[] w = new int[4];
    for (int i = 0; i < 4; i++) {
      w[i] = head[i].length();
      for (String[] r : rows) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    List<String[]> all = new ArrayList<>();
    all.add(head);
    all.addAll(rows);
    for (String[] r : all) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < 4; i++) {
        b.append(r[i]).append(" ".repeat(w[i] - r[i].length() + 2));
      }
      out.println((b + r[4]).stripTrailing());
    }
  }
}
