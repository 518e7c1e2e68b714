package dev.knotless.storage;

import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.cache.SpaceCredentialFile;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.XrpcSpaceClient;
import java.io.IOException;
import java.net.URI;
import java.util.Optional;

/**
 * Private repositories: a repository's records in its owner's space of the same name, read and
 * written through the owner's space host as a member. The host is {@code KNOTLESS_SPACE_HOST} (the
 * harness's space host, while no PDS keeps spaces), else the owner's PDS; a read looks for a
 * private repository only where a host is named ({@link #hostNamed}).
 */
public final class PrivateRepos {
  /** Names the host that keeps every owner's spaces, instead of each owner's PDS. */
  public static final String HOST_ENV = "KNOTLESS_SPACE_HOST";

  private PrivateRepos() {}

  /** Where {@code repo}'s owner keeps their spaces. */
  public static URI host(KnotlessRepos repos, RepoAddress repo) {
    String h = repos.env().get(HOST_ENV);
    return h == null || h.isBlank() ? repo.pds() : URI.create(h.strip());
  }

  /**
   * Whether a space host is named. No released PDS keeps spaces, so a name that holds no public
   * repository is looked for in a space only then: elsewhere it would cost each new repository's
   * first push three calls for an answer known in advance.
   */
  public static boolean hostNamed(KnotlessRepos repos) {
    String h = repos.env().get(HOST_ENV);
    return h != null && !h.isBlank();
  }

  /**
   * The space of a private repository's name, its owner's: where its records live unless it was
   * renamed ({@link SpaceRedirects}).
   */
  public static SpaceId space(RepoAddress repo) {
    return new SpaceId(repo.did(), repo.name());
  }

  /**
   * A space client of {@code repo}'s space host, calling as {@code self} (logged in), its space
   * credentials kept in the config directory for the next process.
   */
  public static SpaceClient client(KnotlessRepos repos, RepoAddress repo, XrpcClient self) {
    return new XrpcSpaceClient(
        XrpcClient.create(host(repos, repo)),
        self,
        repos.clock(),
        SpaceCredentialFile.fromEnvironment(repos.env()));
  }

  /**
   * The repository's space as records to read and write, as the person logged in: empty when no one
   * is logged in, when the owner has no space of that name, or when their host keeps no spaces.
   *
   * @throws IOException saying the repository is private and who is not a member of it, when the
   *     host refuses the person logged in; or that their login reads no space (an app password),
   *     naming {@code knotless login}
   */
  public static Optional<SpaceRecords> open(KnotlessRepos repos, RepoAddress repo)
      throws IOException {
    if (repos.self().isEmpty() || !hostNamed(repos)) {
      return Optional.empty();
    }
    XrpcClient self = repos.member();
    SpaceClient client = client(repos, repo, self);
    SpaceId space;
    try {
      // A renamed one's records stay in the space it was made in, which the space of its new name
      // redirects to.
      space = SpaceRedirects.records(client, repo);
    } catch (XrpcException e) {
      if (SpaceErrors.notMember(e)) {
        throw new IOException(
            repo.url()
                + " is private, and "
                + self.did()
                + " is not a member of its space: its owner has to make you one",
            e);
      }
      if (SpaceErrors.spaceNotFound(e) || keepsNoSpaces(e)) {
        return Optional.empty();
      }
      if (SpaceErrors.loginRefused(e)) {
        throw new IOException(
            repo.url() + " is private, and " + e.serverMessage() + " (`knotless login`)", e);
      }
      throw e;
    }
    return Optional.of(new SpaceRecords(client, space, host(repos, repo)));
  }

  /**
   * The repository's space when {@code repo} is a private repository (a space host is named and
   * {@code publicRecords} hold no repository of the name); see {@link #open}.
   */
  public static Optional<SpaceRecords> openIfPrivate(
      KnotlessRepos repos, RepoAddress repo, RecordStore publicRecords) throws IOException {
    if (!hostNamed(repos)
        || publicRecords.findRecord(repo.did(), Lexicons.REPO, repo.name()).isPresent()) {
      return Optional.empty();
    }
    return open(repos, repo);
  }

  /** Whether the host answered as one with no {@code com.atproto.space.*} methods at all. */
  static boolean keepsNoSpaces(XrpcException e) {
    return e.status() == 404
        || e.status() == 501
        || "MethodNotImplemented".equals(e.error())
        || "XRPCNotSupported".equals(e.error())
        || String.valueOf(e.serverMessage()).startsWith("No service configured for");
  }
}
