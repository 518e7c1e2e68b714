package dev.knotless.storage.cli;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SecretSeal;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.secrets.AppviewSecrets;
import dev.knotless.storage.secrets.RunnerKeyRecord;
import dev.knotless.storage.secrets.SealedSecret;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code knotless secret set|list|rm <url> ... --runner <did>}: seals a secret's value, read from
 * standard input, to the key the runner publishes ({@code dev.knotless.runnerKey}), bound to the
 * repository's owner and key, the runner, the name and the refs, and leaves it at the appview
 * (KNOTLESS_APPVIEW); lists the names left there; removes one. The value never appears in an
 * argument, the output or an error.
 */
public final class SecretCommand {

  /** The appview's variable. */
  public static final String APPVIEW = "KNOTLESS_APPVIEW";

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final int MAX_VALUE = 48 * 1024;

  private SecretCommand() {}

  /** Seals the value on standard input as {@code name}; returns the exit code. */
  public static int set(String url, String name, String runner, List<String> refs, CliContext ctx)
      throws IOException {
    return run("set", url, name, runner, refs, ctx);
  }

  /** Lists the names left for {@code url}, of one runner or, when null, of all. */
  public static int list(String url, String runner, CliContext ctx) throws IOException {
    return run("list", url, null, runner, List.of(), ctx);
  }

  /** Removes {@code name} sealed to {@code runner}; returns the exit code. */
  public static int rm(String url, String name, String runner, CliContext ctx) throws IOException {
    return run("rm", url, name, runner, List.of(), ctx);
  }

  private static int run(
      String verb, String url, String secretName, String runner, List<String> refs, CliContext ctx)
      throws IOException {
    if (runner != null && !runner.startsWith("did:")) {
      throw new UsageException("--runner " + runner + ": expected the runner's DID");
    }
    String appviewUrl = ctx.env().get(APPVIEW);
    if (appviewUrl == null || appviewUrl.isBlank()) {
      throw new IOException(APPVIEW + " is not set: sealed secrets are left at the appview");
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    String key = RunnersCommand.read(repos.reader(repo), repo).value().path("key").asText("");
    XrpcClient owner = repos.writer(repo);
    AppviewSecrets appview =
        new AppviewSecrets(XrpcClient.create(URI.create(appviewUrl.strip())), owner);
    switch (verb) {
      case "set" -> {
        String name = name(secretName);
        need(runner, verb);
        String didKey = runnerKey(runner, ctx, repos);
        String value = readValue(ctx);
        SecretSeal.Sealed sealed =
            SecretSeal.seal(didKey, new SealBinding(repo.did(), key, runner, name, refs), value);
        appview.put(
            new SealedSecret(
                repo.did(), key, runner, name, refs, sealed, Instant.now().toString()));
        ctx.out()
            .println(
                "sealed "
                    + name
                    + " to "
                    + runner
                    + " for "
                    + repo.url()
                    + (refs.isEmpty() ? "" : " at " + String.join(", ", refs)));
        return 0;
      }
      case "list" -> {
        for (SealedSecret s : appview.list(repo.did(), key, runner)) {
          ctx.out()
              .println(
                  s.name()
                      + "\t"
                      + s.runner()
                      + "\t"
                      + (s.refs().isEmpty() ? "*" : String.join(",", s.refs()))
                      + "\t"
                      + s.createdAt());
        }
        return 0;
      }
      case "rm" -> {
        String name = name(secretName);
        need(runner, verb);
        boolean gone = appview.delete(repo.did(), key, runner, name);
        ctx.out()
            .println(
                gone
                    ? "removed " + name + " for " + runner + " from " + repo.url()
                    : repo.url() + " has no " + name + " sealed to " + runner);
        return 0;
      }
      default -> throw new UsageException("unknown action " + verb + ": set, list or rm");
    }
  }

  private static String name(String name) {
    if (!NAME.matcher(name).matches() || name.startsWith("KNOTLESS_RUN_")) {
      throw new UsageException(
          name + " is not a secret's name: letters, digits and _, not starting with a digit");
    }
    return name;
  }

  private static void need(String runner, String verb) {
    if (runner == null) {
      throw new UsageException(verb + " needs --runner <did>: a secret is sealed to one runner");
    }
  }

  /** The did:key the runner publishes, read from its own PDS. */
  private static String runnerKey(String runner, CliContext ctx, KnotlessRepos repos)
      throws IOException {
    Identity id =
        IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local()).resolve(runner);
    return RunnerKeyRecord.read(XrpcClient.create(id.pds()), runner)
        .orElseThrow(
            () ->
                new IOException(
                    runner
                        + " publishes no "
                        + RunnerKeyRecord.COLLECTION
                        + " record: it has not started since it could take sealed secrets"));
  }

  /** The value, from standard input, one trailing newline dropped as a shell's echo adds one. */
  private static String readValue(CliContext ctx) throws IOException {
    byte[] bytes = ctx.in().readNBytes(MAX_VALUE + 1);
    if (bytes.length > MAX_VALUE) {
      throw new IOException("the value on standard input is over " + MAX_VALUE + " bytes");
    }
    String v = new String(bytes, StandardCharsets.UTF_8);
    if (v.endsWith("\n")) {
      v = v.substring(0, v.length() - (v.endsWith("\r\n") ? 2 : 1));
    }
    if (v.isEmpty()) {
      throw new IOException("no value on standard input: pipe the secret's value in");
    }
    return v;
  }
}
