package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsServer;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.TestTls;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code git push} and a {@code git clone} of {@code knotless://<handle>/<repo>}, where the
 * handle is a domain name the reference PDS does not know and no DNS record names: it resolves only
 * through the {@code https://<handle>/.well-known/atproto-did} an HTTPS server the test starts
 * answers. Git runs the helper as it always does, in a process of its own ({@link
 * RoutedRemoteHelper}, which routes the handle's name to that server).
 */
@WithPds
class WellKnownHandlePushIT {
  private static final String HANDLE = "pusher.example.test";
  private static final String WELL_KNOWN = HANDLE + " /.well-known/atproto-did";

  private final Map<String, String> served = new ConcurrentHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  @Test
  void aPushAndACloneByAHandleOnlyItsWellKnownUrlResolvesReachTheAccountItNames(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("wkpush");
    TestTls tls = TestTls.forNames(tmp, List.of(HANDLE));
    HttpsServer server = tls.server(TestTls.answering(served, requests));
    try {
      served.put(WELL_KNOWN, owner.did() + "\n");
      Path shims = shim(tmp.resolve("shims"), server.getAddress().getPort(), tls.file());
      String url = "knotless://" + HANDLE + "/site";

      GitUser alice = routed(new GitUser(pds, owner, tmp.resolve("alice")), shims);
      Path work = alice.newRepo(tmp.resolve("work"), "README.md", "hello\n");
      alice.ok(work, "remote", "add", "origin", url);
      alice.ok(work, "push", "-q", "origin", "main");
      String head = alice.ok(work, "rev-parse", "HEAD").strip();
      assertTrue(requests.contains(WELL_KNOWN), "the handle was asked for: " + requests);

      // Someone else, logged in as nobody, clones it by the handle.
      GitUser bob = routed(new GitUser(pds, null, tmp.resolve("bob")), shims);
      int before = requests.size();
      bob.ok(tmp, "clone", "-q", url, "by-handle");
      assertEquals("hello\n", Files.readString(tmp.resolve("by-handle/README.md")));
      assertEquals(head, bob.ok(tmp.resolve("by-handle"), "rev-parse", "HEAD").strip());
      assertTrue(requests.subList(before, requests.size()).contains(WELL_KNOWN), "bob asked too");

      // The records are the account's the handle named: the plain helper finds them by its DID.
      GitUser carol = new GitUser(pds, null, tmp.resolve("carol"));
      carol.ok(tmp, "clone", "-q", "knotless://" + owner.did() + "/site", "by-did");
      assertEquals(head, carol.ok(tmp.resolve("by-did"), "rev-parse", "HEAD").strip());

      // A second push by the handle lands on the first.
      alice.commit(work, "more.txt", "more\n");
      alice.ok(work, "push", "-q", "origin", "main");
      bob.ok(tmp.resolve("by-handle"), "pull", "-q", "--ff-only");
      assertEquals("more\n", Files.readString(tmp.resolve("by-handle/more.txt")));

      // Once the server stops naming the account, the handle resolves nowhere, and git says why.
      served.remove(WELL_KNOWN);
      GitUser dave = routed(new GitUser(pds, null, tmp.resolve("dave")), shims);
      String refused = dave.fails(tmp, "clone", "-q", url, "nowhere");
      assertTrue(
          refused.contains("https://" + HANDLE + "/.well-known/atproto-did answered 404"), refused);
    } finally {
      server.stop(0);
    }
  }

  /** The person's git finds the routed helper before bin/'s. */
  private static GitUser routed(GitUser user, Path shims) {
    return user.with("PATH", shims + ":" + user.env().get("PATH"));
  }

  /** A {@code git-remote-knotless} running {@link RoutedRemoteHelper} on this JVM's classpath. */
  private static Path shim(Path dir, int port, Path trust) throws Exception {
    Files.createDirectories(dir);
    Path helper = dir.resolve("git-remote-knotless");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Files.writeString(
        helper,
        "#!/bin/sh\nexec '"
            + java
            + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
            + " -Dtest.route="
            + HANDLE
            + "="
            + port
            + " '-Dtest.trust="
            + trust
            + "' -cp '"
            + System.getProperty("java.class.path")
            + "' "
            + RoutedRemoteHelper.class.getName()
            + " \"$@\"\n");
    assertTrue(helper.toFile().setExecutable(true));
    return dir;
  }
}
