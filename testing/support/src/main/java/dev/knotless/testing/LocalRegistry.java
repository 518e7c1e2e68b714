package dev.knotless.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real image registry for tests: Debian's docker-registry (the CNCF distribution registry),
 * installed by {@code testing/registry/install.sh} when missing, serving plain HTTP on a free port
 * of 127.0.0.1 from a storage directory of its own. The docker daemon pulls from it without TLS, as
 * dockerd trusts 127.0.0.0/8 as an insecure registry by default.
 *
 * <p>Images go in with {@link #publish}: a new image (one small layer of its own over {@link
 * LocalDocker#BUSYBOX}) is made, pushed, and removed from the daemon, so the registry alone holds
 * it and a kubelet that runs it must pull it. Closing it stops the registry by its PID, deletes its
 * storage, and removes from the daemon the images named for this registry ({@code
 * 127.0.0.1:PORT/...}), which only this registry's tests made; the daemon may be the user's, and
 * nothing else in it is touched.
 */
public final class LocalRegistry implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path dir;
  private final int port;

  private LocalRegistry(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /**
   * Installs the registry if missing, makes sure a docker daemon answers, and starts a registry on
   * 127.0.0.1, returning once {@code /v2/} answers.
   *
   * @throws IOException when it could not be installed or did not answer within 30 s (its log says
   *     why)
   */
  public static LocalRegistry start() throws IOException, InterruptedException {
    Path root = PdsLauncher.repoRoot();
    run(root.resolve("testing/registry/install.sh").toString());
    LocalDocker.ensureImages();
    Path dir = Files.createTempDirectory("knotless-registry-");
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config,
        "version: 0.1\n"
            + "log:\n  level: warn\n  accesslog:\n    disabled: true\n"
            + "storage:\n  filesystem:\n    rootdirectory: "
            + dir.resolve("data")
            + "\n  delete:\n    enabled: true\n"
            + "http:\n  addr: 127.0.0.1:"
            + port
            + "\n  secret: "
            + UUID.randomUUID()
            + "\n");
    Path log = dir.resolve("registry.log");
    Process p =
        new ProcessBuilder("docker-registry", "serve", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    LocalRegistry registry = new LocalRegistry(p, dir, port);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!registry.answers()) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        String said = Files.readString(log);
        registry.close();
        throw new IOException("docker-registry did not answer on 127.0.0.1:" + port + ": " + said);
      }
      Thread.sleep(100);
    }
    return registry;
  }

  /** Where it listens, as an image reference's host: {@code 127.0.0.1:PORT}. */
  public String host() {
    return "127.0.0.1:" + port;
  }

  /** The reference of image {@code knotless/NAME:TAG} in this registry. */
  public String reference(String name, String tag) {
    return host() + "/knotless/" + name + ":" + tag;
  }

  /**
   * Makes image {@code knotless/NAME:TAG} and pushes it here: {@link LocalDocker#BUSYBOX} with one
   * layer of its own (a file, {@code /etc/knotless-image}, naming it), so a pull has a layer to
   * fetch. The daemon keeps no copy. Returns its reference.
   */
  public String publish(String name, String tag) {
    String ref = reference(name, tag);
    String container = "knotless-registry-" + UUID.randomUUID();
    run(
        "docker",
        "run",
        "--name",
        container,
        "--network",
        "none",
        LocalDocker.BUSYBOX,
        "sh",
        "-c",
        "echo " + ref + " " + UUID.randomUUID() + " > /etc/knotless-image");
    try {
      run("docker", "commit", container, ref);
    } finally {
      run("docker", "rm", "-f", container);
    }
    try {
      run("docker", "push", ref);
    } finally {
      run("docker", "rmi", ref);
    }
    return ref;
  }

  /** Whether the daemon holds image {@code ref}. */
  public static boolean inDaemon(String ref) {
    try {
      run("docker", "image", "inspect", ref);
      return true;
    } catch (IllegalStateException absent) {
      return false;
    }
  }

  private boolean answers() {
    try {
      return HTTP.send(
                  HttpRequest.newBuilder(URI.create("http://" + host() + "/v2/"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    try {
      List<String> mine = new ArrayList<>();
      for (String image :
          run("docker", "images", "--format", "{{.Repository}}:{{.Tag}}").strip().split("\n")) {
        if (image.startsWith(host() + "/")) {
          mine.add(image);
        }
      }
      if (!mine.isEmpty()) {
        List<String> rmi = new ArrayList<>(List.of("docker", "rmi", "-f"));
        rmi.addAll(mine);
        run(rmi.toArray(String[]::new));
      }
    } catch (IllegalStateException noDaemon) {
      // Nothing of ours can be left in a daemon that does not answer.
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // A temp directory left behind harms nothing.
    }
  }

  private static String run(String... command) {
    return LocalDocker.run(command);
  }
}
