package dev.knotless.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A running reference PDS ({@code @atproto/pds}) with its own in-memory PLC directory, both on
 * 127.0.0.1 at free ports, started from {@code testing/pds/start-pds.sh} as a child process.
 *
 * <p>Data lives in a fresh temporary directory that the server deletes when it stops. {@link
 * #close()} stops it (SIGTERM, then SIGKILL after {@value #STOP_GRACE_SECONDS} s); a JVM shutdown
 * hook does the same if a test run ends without closing it. The first start on a machine may
 * install the PDS (about a minute and a half), so {@link #start} waits up to {@value
 * #READY_TIMEOUT_SECONDS} s for the server to be ready.
 *
 * <p>Thread-safe: tests may share one instance and create accounts from several threads.
 */
public final class PdsInstance implements AutoCloseable {
  /** How long {@link #start} waits for the ready line, in seconds. */
  public static final int READY_TIMEOUT_SECONDS = 180;

  /** How long {@link #close()} waits after SIGTERM before sending SIGKILL, in seconds. */
  public static final int STOP_GRACE_SECONDS = 15;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9]*");
  private static final int MAX_HANDLE_FRONT = 18;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Process process;
  private final long pid;
  private final URI pdsUrl;
  private final URI plcUrl;
  private final long blobUploadLimit;
  private final boolean rateLimits;
  private final Path stderrLog;
  private final Map<String, Account> accounts;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private final AtomicInteger accountCounter = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook;

  private PdsInstance(Process process, JsonNode ready, Path stderrLog) {
    this.process = process;
    this.pid = ready.path("pid").asLong(process.pid());
    this.pdsUrl = URI.create(ready.path("pdsUrl").asText());
    this.plcUrl = URI.create(ready.path("plcUrl").asText());
    this.blobUploadLimit = ready.path("blobUploadLimit").asLong();
    this.rateLimits = ready.path("rateLimits").asBoolean();
    this.stderrLog = stderrLog;
    Map<String, Account> byName = new LinkedHashMap<>();
    for (JsonNode a : ready.path("accounts")) {
      Account account =
          new Account(
              a.path("handle").asText(), a.path("did").asText(), a.path("password").asText());
      byName.put(account.handle().substring(0, account.handle().indexOf('.')), account);
    }
    this.accounts = Collections.unmodifiableMap(byName);
    this.shutdownHook = new Thread(this::stop, "pds-" + pid + "-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * Starts a PDS with the given options and waits until it answers.
   *
   * @throws IllegalStateException if it does not become ready, with the reason and the tail of its
   *     error output
   */
  public static PdsInstance start(PdsOptions options) {
    return start(options, Map.of());
  }

  /**
   * As {@link #start(PdsOptions)}, with {@code extra} added to the server's environment: {@code
   * PROBE_OAUTH_TOKEN_SECONDS} (OAuth access tokens' life) or a {@code PDS_*} setting.
   */
  public static PdsInstance start(PdsOptions options, Map<String, String> extra) {
    // Its ports are picked free and then bound, apart: another process on the machine may take
    // one between the two, and the server then says EADDRINUSE. Picked again, it starts.
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(options, extra);
      } catch (IllegalStateException e) {
        if (attempt >= 3 || e.getMessage() == null || !e.getMessage().contains("EADDRINUSE")) {
          throw e;
        }
      }
    }
  }

  private static PdsInstance startOnce(PdsOptions options, Map<String, String> extra) {
    Path script = PdsLauncher.repoRoot().resolve("testing/pds/start-pds.sh");
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(List.of("--pds-port", "0", "--plc-port", "0"));
    command.addAll(List.of("--accounts", String.join(",", options.accounts())));
    ProcessBuilder builder = new ProcessBuilder(command);
    // Only the options given here may shape the server, not PDS_* left in the caller's shell.
    builder.environment().keySet().removeIf(k -> k.startsWith("PDS_"));
    if (options.rateLimits()) {
      builder.environment().put("PDS_RATE_LIMITS_ENABLED", "true");
    }
    if (options.blobUploadLimit() > 0) {
      builder.environment().put("PDS_BLOB_UPLOAD_LIMIT", Long.toString(options.blobUploadLimit()));
    }
    builder.environment().remove("PROBE_PASSWORD_SPACES");
    if (options.passwordSpaces()) {
      builder.environment().put("PROBE_PASSWORD_SPACES", "allow");
    }
    builder.environment().putAll(extra);
    Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
    builder.environment().put("TMPDIR", tmp.toString());
    Path stderrLog;
    Process process;
    try {
      Files.createDirectories(tmp);
      stderrLog = Files.createTempFile(tmp, "pds-", ".stderr.log");
      builder.redirectError(stderrLog.toFile());
      builder.redirectInput(ProcessBuilder.Redirect.from(PdsLauncher.nullFile()));
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + script, e);
    }
    JsonNode ready = PdsLauncher.awaitReady(process, stderrLog);
    return new PdsInstance(process, ready, stderrLog);
  }

  /** The PDS's address, such as {@code http://127.0.0.1:33611}. */
  public URI pdsUrl() {
    return pdsUrl;
  }

  /** The PLC directory's address; GET {@code <plcUrl>/<did>} returns a DID document. */
  public URI plcUrl() {
    return plcUrl;
  }

  /** The blob upload limit the PDS enforces and advertises in describeServer, in bytes. */
  public long blobUploadLimit() {
    return blobUploadLimit;
  }

  /** Whether the PDS's rate limits are on. */
  public boolean rateLimits() {
    return rateLimits;
  }

  /** The server's process id; it is the Node process itself, so killing it stops the PDS. */
  public long pid() {
    return pid;
  }

  /** Whether the server process is still running. */
  public boolean isAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** The file collecting the server's error output (install progress, crashes). */
  public Path stderrLog() {
    return stderrLog;
  }

  /**
   * An account created at start, by short name ({@code alice} for {@code alice.test}).
   *
   * @throws IllegalArgumentException if no such account was created
   */
  public Account account(String name) {
    String shortName = name.endsWith(".test") ? name.substring(0, name.length() - 5) : name;
    Account account = accounts.get(shortName);
    if (account == null) {
      throw new IllegalArgumentException(
          "no account " + name + " on this PDS; it has " + accounts.keySet());
    }
    return account;
  }

  /** The accounts created at start, by short name, in creation order. */
  public Map<String, Account> accounts() {
    return accounts;
  }

  /**
   * Creates a new account no other caller of this instance has, with handle {@code
   * <prefix><n>.test} and a random password, over {@code com.atproto.server.createAccount}.
   *
   * @param prefix lowercase letters and digits, starting with a letter; with the number it must
   *     stay within the PDS's 3 to 18 characters
   * @throws IllegalArgumentException if the prefix is not usable
   * @throws IllegalStateException if the PDS refuses, with its answer
   */
  public Account createAccount(String prefix) {
    if (!PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "account prefix must be lowercase letters and digits starting with a letter, got \""
              + prefix
              + "\"");
    }
    String front = prefix + accountCounter.incrementAndGet();
    if (front.length() < 3) {
      front = front + "x".repeat(3 - front.length());
    }
    if (front.length() > MAX_HANDLE_FRONT) {
      throw new IllegalArgumentException(
          "account prefix \""
              + prefix
              + "\" is too long: the PDS takes handles of 3 to 18 characters");
    }
    String handle = front + ".test";
    byte[] secret = new byte[12];
    RANDOM.nextBytes(secret);
    String password = HexFormat.of().formatHex(secret);
    ObjectNode body = JSON.createObjectNode();
    body.put("handle", handle).put("password", password).put("email", front + "@example.test");
    JsonNode answer = post("com.atproto.server.createAccount", body);
    return new Account(answer.path("handle").asText(handle), answer.path("did").asText(), password);
  }

  /**
   * The DID document the PLC directory holds for {@code did}, as a copy a test may change and serve
   * elsewhere (a did:web's, say).
   *
   * @throws IllegalStateException if the directory does not answer 200, with its answer
   */
  public ObjectNode didDocument(String did) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(plcUrl + "/" + did))
            .timeout(Duration.ofSeconds(30))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "the PLC directory answered "
                + response.statusCode()
                + " for "
                + did
                + ": "
                + response.body());
      }
      return (ObjectNode) JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("the DID document of " + did, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading the DID document of " + did, e);
    }
  }

  private JsonNode post(String nsid, JsonNode body) {
    HttpRequest request =
        HttpRequest.newBuilder(pdsUrl.resolve("/xrpc/" + nsid))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            nsid + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(nsid + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + nsid, e);
    }
  }

  /**
   * The environment a knotless process needs to find this PDS's accounts: {@code KNOTLESS_PLC_URL}
   * (DID documents) and {@code KNOTLESS_HANDLE_RESOLVER} (the {@code .test} handles, which no DNS
   * knows).
   */
  public Map<String, String> environment() {
    return Map.of(
        "KNOTLESS_PLC_URL",
        plcUrl.toString(),
        "KNOTLESS_HANDLE_RESOLVER",
        pdsUrl.toString(),
        // The test PDS and its PLC directory answer on 127.0.0.1 over plain http.
        "KNOTLESS_ALLOW_LOCAL_SERVICES",
        "true");
  }

  /**
   * Stops the server: SIGTERM, then SIGKILL if it has not exited after {@value #STOP_GRACE_SECONDS}
   * s. Returns once the process is gone. Idempotent.
   */
  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook runs or has run stop() anyway.
    }
  }

  private void stop() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ProcessHandle.of(pid).ifPresent(PdsLauncher::kill);
    PdsLauncher.kill(process.toHandle());
  }

  @Override
  public String toString() {
    return "PdsInstance[" + pdsUrl + ", plc " + plcUrl + ", pid " + pid + "]";
  }
}
