package dev.knotless.testing.distributed;

import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.EmbeddedPg;
import dev.knotless.testing.infra.KafkaBroker;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The distributed shape on one machine, all on 127.0.0.1: a Kafka broker in its own JVM, embedded
 * PostgreSQL, the reference PDS with a runner account, and the ingester, reconcilers, schedulers
 * and check-writer as processes. Reconcilers only queue runs; a scheduler runs each as a pod, here
 * on the Fabric8 mock API server with the test kubelet ({@link #startScheduler()}). Tests and
 * {@code deploy/local-distributed.sh} both use it. Closing it ends every process it started, by
 * PID.
 */
public final class LocalDistributed implements AutoCloseable {
  private final Path dir;
  private final KafkaBroker broker;
  private final EmbeddedPg pg;
  private final PdsInstance pds;
  private final Account runner;
  private final ReposList repos = new ReposList();
  private final List<ServiceProcess> services = new ArrayList<>();
  private int reconcilers;
  private int schedulers;
  private int checkWriters;
  private RunPods pods;
  private java.net.URI appview;
  private String appviewDid;
  private boolean discover;
  private Path secretsKey;
  private java.net.URI spaceHost;
  private Path oauthSession;
  private final ServiceLauncher launcher;

  private LocalDistributed(
      Path root, Path dir, KafkaBroker broker, EmbeddedPg pg, PdsInstance pds, Account runner) {
    this.dir = dir;
    this.launcher = new ServiceLauncher(root, dir, broker, pg);
    this.broker = broker;
    this.pg = pg;
    this.pds = pds;
    this.runner = runner;
  }

  /**
   * Starts the broker, PostgreSQL and the PDS with a runner account; the services come later, once
   * the repositories they watch exist.
   *
   * @param root the project's root (the services' jars are under it)
   * @param dir where logs, caches and work directories go
   */
  public static LocalDistributed start(Path root, Path dir) throws IOException {
    Files.createDirectories(dir);
    KafkaBroker broker = null;
    EmbeddedPg pg = null;
    try {
      // As a deploy runs it: every service authenticates as itself and writes only its topics.
      broker = KafkaBroker.startAuthenticated();
      pg = EmbeddedPg.start();
      PdsInstance pds = PdsInstance.start(PdsOptions.defaults());
      return new LocalDistributed(root, dir, broker, pg, pds, pds.createAccount("runner"));
    } catch (IOException | RuntimeException e) {
      if (pg != null) {
        pg.close();
      }
      if (broker != null) {
        broker.close();
      }
      throw e;
    }
  }

  /** The project root as the build gives it to tests. */
  public static Path projectRoot() {
    return Path.of(System.getProperty("knotless.repo.root", ".")).toAbsolutePath().normalize();
  }

  /**
   * A new owner account with a repository {@code name} pushed with {@code files} on main; the
   * services started after this watch it.
   */
  public OwnerRepo ownerRepo(String name, Map<String, String> files) throws IOException {
    return ownerRepo(pds.createAccount("owner"), name, files);
  }

  /** As {@link #ownerRepo(String, Map)}, in {@code owner}'s account. */
  public OwnerRepo ownerRepo(Account owner, String name, Map<String, String> files)
      throws IOException {
    OwnerRepo o = new OwnerRepo(owner, pds.pdsUrl(), name, dir.resolve("owners/" + name));
    o.commit(files);
    o.push("main");
    watch(o.account.did(), o.key(), name);
    return o;
  }

  /**
   * Has the services started after this watch a repository made some other way (a {@code
   * dev.knotless.repo} record written directly, say, with no refs yet).
   */
  public void watch(String did, String key, String name) {
    repos.add(did, key, name);
  }

  /**
   * Has the services started after this watch the repository {@code key} by {@code name} rather
   * than the name it was watched by: the list an operator edits after a rename.
   */
  public void rewatch(String did, String key, String name) {
    repos.rename(did, key, name);
  }

  /** The ingester, following the PDS's firehose for the repositories made so far. */
  public ServiceProcess startIngester() throws IOException {
    return startIngester(Map.of());
  }

  /**
   * The ingester, with {@code extra} settings (its sweep, say) over the harness's own. It lists
   * nothing itself: it follows the repositories the reconcilers keep in PostgreSQL.
   */
  public ServiceProcess startIngester(Map<String, String> extra) throws IOException {
    Map<String, String> s = launcher.kafka();
    s.put("knotless.ingester.source", "firehose");
    s.put("knotless.ingester.firehose", pds.pdsUrl().toString());
    s.put("knotless.ingester.watch-refresh", "1s");
    s.put("knotless.ingester.discover", Boolean.toString(discover));
    Map<String, String> env = new HashMap<>();
    launcher.postgres(s, env);
    s.putAll(extra);
    return add(launcher.launch("ingester", "ingester", s, env, false));
  }

  /**
   * Has services started from now on read private repositories in their owners' spaces on {@code
   * host} ({@code KNOTLESS_SPACE_HOST}, in their environment as the all-in-one's), logged in as the
   * runner with an OAuth session (the file {@code KNOTLESS_OAUTH_SESSION} names, as the chart's
   * Secret mounts it) rather than its password, since a password reads no space.
   */
  public LocalDistributed withSpaceHost(java.net.URI host) {
    this.spaceHost = host;
    if (oauthSession == null) {
      oauthSession =
          dev.knotless.testing.infra.HarnessOAuth.sessionFile(
              pds, runner, dir.resolve("runner-oauth-session.json"));
    }
    return this;
  }

  /**
   * Has services started from now on ask {@code appview} for owners' sealed secrets and, with
   * {@code discover}, for the repositories that name the runner (listRepos), as the chart's {@code
   * appview} and {@code discover} values do.
   */
  public LocalDistributed withAppview(java.net.URI appview, boolean discover) {
    this.appview = appview;
    this.discover = discover;
    return this;
  }

  /**
   * As {@link #withAppview(java.net.URI, boolean)}, and has check-writers started from now on send
   * runs' live output to it, with service tokens for {@code appviewDid}.
   */
  public LocalDistributed withAppview(java.net.URI appview, String appviewDid, boolean discover) {
    this.appviewDid = appviewDid;
    return withAppview(appview, discover);
  }

  /**
   * Has services started from now on export their spans to the OTLP receiver at {@code endpoint}
   * ({@link LocalOtlp}), as the chart's {@code traces.otlpEndpoint} value does.
   */
  public LocalDistributed withTraces(java.net.URI endpoint) {
    launcher.traces(endpoint);
    return this;
  }

  /**
   * Has the schedulers started from now on hold the runner's key in {@code file}, as the chart
   * mounts it from a Secret: they publish it and open what owners sealed to it.
   */
  public LocalDistributed withSecretsKey(Path file) {
    this.secretsKey = file;
    return this;
  }

  /**
   * Has services started from now on run from their images under docker ({@link ServiceImages}), as
   * a cluster runs them, rather than as JVMs from their jars.
   */
  public LocalDistributed fromImages() throws IOException {
    launcher.fromImages();
    return this;
  }

  /**
   * Reconcilers only queue runs now, for a scheduler ({@link #startScheduler()}): nothing to set.
   *
   * @deprecated kept for bench/ until it is rewritten; does nothing
   */
  @Deprecated(forRemoval = true)
  public LocalDistributed withScheduler() {
    return this;
  }

  /**
   * One more scheduler running the queued runs as pods ({@link RunPods}: in its namespace, of the
   * local busybox image, others' code under its sandbox class); the first starts the mock API
   * server and the test kubelet, which close with the shape.
   */
  public ServiceProcess startScheduler() throws IOException {
    return startScheduler(Map.of());
  }

  /** As {@link #startScheduler()}, with {@code extra} settings over the harness's own. */
  public ServiceProcess startScheduler(Map<String, String> extra) throws IOException {
    RunPods p = pods();
    return startScheduler(
        p.url(),
        "harness-" + Long.toHexString(System.nanoTime()),
        RunPods.NAMESPACE,
        RunPods.SANDBOX_CLASS,
        dev.knotless.testing.LocalDocker.BUSYBOX,
        extra);
  }

  /** Where {@link #startScheduler()}'s schedulers run pods, started at the first call. */
  public synchronized RunPods pods() {
    if (pods == null) {
      pods = RunPods.start();
    }
    return pods;
  }

  /** How many run pods the schedulers of {@link #startScheduler()} made so far. */
  public synchronized long podsMade() {
    return pods == null ? 0 : pods.made();
  }

  /** How many of those pods run now. */
  public synchronized long podsRunning() {
    return pods == null ? 0 : pods.running();
  }

  /**
   * One more scheduler, standing for the Lease on the API server at {@code apiServer}, making run
   * pods in {@code namespace} of {@code image}, others' code under {@code runtimeClass}.
   *
   * @param extra settings over the harness's own (a secrets file, say)
   */
  public ServiceProcess startScheduler(
      String apiServer,
      String token,
      String namespace,
      String runtimeClass,
      String image,
      Map<String, String> extra)
      throws IOException {
    int n = ++schedulers;
    Map<String, String> s = launcher.kafka();
    Map<String, String> env = runnerEnv();
    launcher.postgres(s, env);
    s.put("knotless.scheduler.api-server", apiServer);
    s.put("knotless.scheduler.namespace", namespace);
    s.put("knotless.scheduler.runtime-class", runtimeClass);
    s.put("knotless.scheduler.run-image", image);
    s.put("knotless.scheduler.identity", "scheduler-" + n);
    s.put("knotless.scheduler.lease-duration", "4s");
    s.put("knotless.scheduler.renew-deadline", "3s");
    s.put("knotless.scheduler.retry-period", "500ms");
    s.put("knotless.scheduler.poll", "250ms");
    s.put("knotless.scheduler.heartbeat", "1s");
    s.put("knotless.scheduler.sweep", "2s");
    s.put("knotless.scheduler.pull-grace", "0s");
    s.put("knotless.scheduler.plc-url", pds.environment().get("KNOTLESS_PLC_URL"));
    s.put("knotless.scheduler.handle-resolver", pds.environment().get("KNOTLESS_HANDLE_RESOLVER"));
    launcher.writable(dir.resolve("scheduler-" + n));
    s.put("knotless.scheduler.cache-dir", dir.resolve("scheduler-" + n + "/cache").toString());
    s.put("knotless.scheduler.work", dir.resolve("scheduler-" + n + "/work").toString());
    if (secretsKey != null) {
      s.put("knotless.scheduler.secrets-key-file", secretsKey.toString());
    }
    if (appview != null) {
      s.put("knotless.scheduler.appview", appview.toString());
    }
    s.putAll(extra);
    env.put("KNOTLESS_SCHEDULER_API_TOKEN", token);
    return add(launcher.launch("scheduler", "scheduler-" + n, s, env, false));
  }

  /** One more reconciler replica, watching the repositories made so far. */
  public ServiceProcess startReconciler() throws IOException {
    return startReconciler(Map.of());
  }

  /** One more reconciler replica, with {@code extra} settings over the harness's. */
  public ServiceProcess startReconciler(Map<String, String> extra) throws IOException {
    int n = ++reconcilers;
    Path list = dir.resolve("repos.txt");
    repos.write(list);
    Map<String, String> s = launcher.kafka();
    Map<String, String> env = runnerEnv();
    launcher.postgres(s, env);
    s.put("knotless.reconciler.pds", pds.pdsUrl().toString());
    s.put("knotless.reconciler.repos-file", list.toString());
    if (appview != null) {
      s.put("knotless.reconciler.appview", appview.toString());
      s.put("knotless.reconciler.discover", Boolean.toString(discover));
    }
    s.put("knotless.reconciler.plc-url", pds.environment().get("KNOTLESS_PLC_URL"));
    s.put("knotless.reconciler.handle-resolver", pds.environment().get("KNOTLESS_HANDLE_RESOLVER"));
    launcher.writable(dir.resolve("reconciler-" + n));
    s.put("knotless.reconciler.cache-dir", dir.resolve("reconciler-" + n + "/cache").toString());
    s.put("knotless.reconciler.recovery.every", "1s");
    s.put("knotless.reconciler.recovery.stale-after", "6s");
    // A replica that dies gives its partitions up within ten seconds rather than the default 45.
    s.put("mp.messaging.incoming.doorbells.session.timeout.ms", "10000");
    s.put("mp.messaging.incoming.doorbells.heartbeat.interval.ms", "1000");
    s.putAll(extra);
    return add(launcher.launch("reconciler", "reconciler-" + n, s, env, false));
  }

  /**
   * One more check-writer replica, filing in the runner's account through {@code pds} (the PDS
   * itself when null); replicas share the run-events partitions and keep running checks in
   * PostgreSQL.
   */
  public ServiceProcess startCheckWriter(java.net.URI pdsUrl) throws IOException {
    int n = ++checkWriters;
    Map<String, String> s = launcher.kafka();
    s.put("knotless.check-writer.pds", (pdsUrl == null ? pds.pdsUrl() : pdsUrl).toString());
    Map<String, String> env = runnerEnv();
    launcher.postgres(s, env);
    // A replica that dies gives its partitions up within ten seconds rather than the default 45.
    s.put("mp.messaging.incoming.run-events.session.timeout.ms", "10000");
    s.put("mp.messaging.incoming.run-events.heartbeat.interval.ms", "1000");
    if (appview != null && appviewDid != null) {
      s.put("knotless.check-writer.appview", appview.toString());
      s.put("knotless.check-writer.appview-did", appviewDid);
    }
    return add(
        launcher.launch(
            "check-writer", n == 1 ? "check-writer" : "check-writer-" + n, s, env, false));
  }

  /** The check-writer, filing in the runner's account. */
  public ServiceProcess startCheckWriter() throws IOException {
    return startCheckWriter(null);
  }

  /** The services started so far whose names start with {@code prefix}, in the order started. */
  public List<ServiceProcess> services(String prefix) {
    return services.stream().filter(s -> s.toString().startsWith(prefix)).toList();
  }

  private ServiceProcess add(ServiceProcess s) {
    services.add(s);
    return s;
  }

  private Map<String, String> runnerEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    if (oauthSession == null) {
      env.put("KNOTLESS_PASSWORD", runner.password());
    } else {
      env.put("KNOTLESS_OAUTH_SESSION", oauthSession.toString());
    }
    if (spaceHost != null) {
      env.put("KNOTLESS_SPACE_HOST", spaceHost.toString());
    }
    return env;
  }

  public PdsInstance pds() {
    return pds;
  }

  public Account runner() {
    return runner;
  }

  public KafkaBroker broker() {
    return broker;
  }

  public EmbeddedPg postgres() {
    return pg;
  }

  public Path dir() {
    return dir;
  }

  @Override
  public void close() {
    for (int i = services.size() - 1; i >= 0; i--) {
      services.get(i).stop();
    }
    if (pods != null) {
      pods.close();
    }
    pds.close();
    try {
      pg.close();
    } catch (IOException e) {
      System.err.println("PostgreSQL did not stop cleanly: " + e.getMessage());
    }
    broker.close();
  }
}
