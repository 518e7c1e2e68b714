package dev.knotless.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/1.1 reverse proxy on 127.0.0.1 that forwards every request to one target (a PDS) and
 * counts what passes: requests, requests per XRPC method, and round trips.
 *
 * <p>A round trip is what a client waits for: a request that starts while no other request is in
 * flight opens a new one, and requests that overlap it belong to it. So two reads sent at once
 * count one round trip and two requests, and a read sent after the first answered counts two.
 * Requests are counted when their headers arrive, before they are forwarded.
 *
 * <p>A local PDS answers in a millisecond or two, so requests a client means to send together may
 * not actually overlap. {@link #start(URI, Duration)} adds a delay before each request is
 * forwarded, like a distant server, so parallel requests do overlap and a test of "one round trip"
 * measures the client rather than the scheduler.
 *
 * <p>Forwards each request on the thread that took it ({@link ProxyForward}), and counts it under
 * one lock: a request costs the proxy about 0.2 ms of CPU. Forwards method, path, query, body and
 * end-to-end headers (Authorization and Content-Type among them) and answers with the target's
 * status, headers (including the {@code ratelimit-*} ones) and body. Bodies are buffered whole. It
 * speaks plain HTTP only: no websocket upgrade, so {@code subscribeRepos} must go to the PDS
 * directly, and sends only the methods HttpURLConnection does (GET, POST, PUT, DELETE and the
 * like): any other is answered 501. Thread-safe.
 */
public final class CountingProxy implements AutoCloseable {
  static {
    // The JDK's HttpServer leaves Nagle's algorithm on, so a reply written as headers then body
    // can wait 40 ms for the client's delayed ACK: that stalled one request in several, more often
    // with several in flight. Read when the first HttpServer in the JVM starts, so set it here.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /** Headers that belong to one connection, not to the request, or that the client sets itself. */
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "host",
          "content-length",
          "expect",
          "http2-settings");

  private final URI target;
  private volatile Duration latency;
  private final HttpServer server;
  private final ExecutorService executor;
  private final Object lock = new Object();
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();
  private int inFlight;
  private int requests;
  private int roundTrips;
  private final Map<String, Integer> byMethod = new TreeMap<>();
  private volatile Gathering gathering;
  private final Map<String, java.util.concurrent.CountDownLatch> groups = new java.util.HashMap<>();

  /** See {@link #gather}. */
  private record Gathering(
      java.util.function.BiFunction<String, String, String> group, int size, Duration max) {}

  private final List<Span> spans = new java.util.ArrayList<>();
  private long busySince;
  private long busyNanos;

  /**
   * One request as the proxy saw it: its XRPC method, its raw query string (empty when none), and
   * when it arrived and was answered, by {@link System#nanoTime()} (the added latency included).
   */
  public record Span(String method, String query, long startNanos, long endNanos) {
    /** The value of query parameter {@code name}, decoded, or null when the query has none. */
    public String parameter(String name) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        String key = eq < 0 ? pair : pair.substring(0, eq);
        if (key.equals(name)) {
          return eq < 0
              ? ""
              : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        }
      }
      return null;
    }
  }

  /**
   * The round trips among {@code spans} alone, counted as the proxy counts all of its requests: a
   * span that starts once every earlier one has been answered opens a new one. For the round trips
   * of one client's work, such as one repository's pass, among many clients' requests at once.
   */
  public static int roundTrips(java.util.Collection<Span> spans) {
    List<Span> sorted = new java.util.ArrayList<>(spans);
    sorted.sort(java.util.Comparator.comparingLong(Span::startNanos));
    int trips = 0;
    long answered = Long.MIN_VALUE;
    for (Span s : sorted) {
      if (trips == 0 || s.startNanos() > answered) {
        trips++;
        answered = s.endNanos();
      } else {
        answered = Math.max(answered, s.endNanos());
      }
    }
    return trips;
  }

  private CountingProxy(URI target, Duration latency) throws IOException {
    this.target = target;
    this.latency = latency;
    this.executor = Executors.newCachedThreadPool();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts a proxy to {@code target} (such as {@code pds.pdsUrl()}) on a free port. */
  public static CountingProxy start(URI target) {
    return start(target, Duration.ZERO);
  }

  /**
   * Starts a proxy to {@code target} that holds every request for {@code latency} before forwarding
   * it.
   */
  public static CountingProxy start(URI target, Duration latency) {
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative, got " + latency);
    }
    try {
      return new CountingProxy(target, latency);
    } catch (IOException e) {
      throw new UncheckedIOException("could not open the counting proxy", e);
    }
  }

  /**
   * Holds every request from now on for {@code latency} before forwarding it: a start made quickly,
   * say, then a sweep timed as a distant PDS would answer it.
   */
  public void latency(Duration latency) {
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative, got " + latency);
    }
    this.latency = latency;
  }

  /**
   * From now on holds each request that {@code group} (given its XRPC method and raw query) puts in
   * a group until {@code size} requests of that group have arrived, then forwards them together; a
   * group still short after {@code max} goes as it is. Requests {@code group} gives null pass
   * unheld. So reads a client sends at once overlap here however late a busy machine lets each
   * thread send its own, and are counted one round trip; reads it sends one after another, each
   * waiting for the last's answer, wait out {@code max} each and are counted apart. For a test of
   * "one round trip" that a loaded machine cannot make flaky, and that costs a client that keeps to
   * it no added wait.
   */
  public void gather(
      java.util.function.BiFunction<String, String, String> group, int size, Duration max) {
    this.gathering = new Gathering(group, size, max);
  }

  /** Holds a request of a group until the group is whole or the wait is over (see gather). */
  private void awaitGroup(String method, String query) throws InterruptedException {
    Gathering g = gathering;
    String id = g == null ? null : g.group().apply(method, query);
    if (id == null) {
      return;
    }
    java.util.concurrent.CountDownLatch whole;
    synchronized (lock) {
      whole = groups.computeIfAbsent(id, k -> new java.util.concurrent.CountDownLatch(g.size()));
      whole.countDown();
      if (whole.getCount() == 0) {
        groups.remove(id);
      }
    }
    if (!whole.await(g.max().toMillis(), TimeUnit.MILLISECONDS)) {
      synchronized (lock) {
        // Short: the next request of this id starts a group of its own.
        groups.remove(id, whole);
      }
    }
  }

  /** The proxy's address, {@code http://127.0.0.1:<port>}: give it to a client as its PDS. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /**
   * Waits until no request has come for {@code still}, as between two sweeps: what was asked is
   * then all counted.
   */
  public void awaitQuiet(java.time.Duration still) throws InterruptedException {
    int before = -1;
    long since = System.nanoTime();
    while (true) {
      int now = requests();
      if (now != before) {
        before = now;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > still.toNanos()) {
        return;
      }
      Thread.sleep(20);
    }
  }

  /** Requests received since start or {@link #reset()}. */
  public int requests() {
    synchronized (lock) {
      return requests;
    }
  }

  /** Round trips since start or {@link #reset()} (see the class comment). */
  public int roundTrips() {
    synchronized (lock) {
      return roundTrips;
    }
  }

  /**
   * Requests per XRPC method ({@code com.atproto.repo.getRecord}), or per path for requests outside
   * {@code /xrpc/}, sorted by name. A copy.
   */
  public Map<String, Integer> byMethod() {
    synchronized (lock) {
      return Map.copyOf(new TreeMap<>(byMethod));
    }
  }

  /**
   * How long at least one request was in flight since start or {@link #reset()}: the time a client
   * that sent them spent waiting on the PDS, overlapping requests counted once.
   */
  public long busyNanos() {
    synchronized (lock) {
      return busyNanos + (inFlight > 0 ? System.nanoTime() - busySince : 0);
    }
  }

  /** The requests answered since start or {@link #reset()}, in the order they were answered. */
  public List<Span> spans() {
    synchronized (lock) {
      return List.copyOf(spans);
    }
  }

  /** Requests to one XRPC method so far; 0 if none. */
  public int requests(String nsid) {
    synchronized (lock) {
      return byMethod.getOrDefault(nsid, 0);
    }
  }

  /**
   * Zeroes the counts. A request still in flight keeps its round trip open, so one that overlaps
   * the reset is not counted again.
   */
  public void reset() {
    synchronized (lock) {
      requests = 0;
      roundTrips = 0;
      byMethod.clear();
      spans.clear();
      busyNanos = 0;
      busySince = System.nanoTime();
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getRawPath();
    String method = path.startsWith("/xrpc/") ? path.substring("/xrpc/".length()) : path;
    String query = exchange.getRequestURI().getRawQuery();
    long start = System.nanoTime();
    synchronized (lock) {
      if (inFlight == 0) {
        roundTrips++;
        busySince = start;
      }
      inFlight++;
      requests++;
      byMethod.merge(method, 1, Integer::sum);
    }
    try (exchange) {
      try {
        awaitGroup(method, query == null ? "" : query);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      forward(exchange);
    } finally {
      synchronized (lock) {
        inFlight--;
        long end = System.nanoTime();
        if (inFlight == 0) {
          busyNanos += end - busySince;
        }
        spans.add(new Span(method, query == null ? "" : query, start, end));
      }
    }
  }

  private void forward(HttpExchange exchange) throws IOException {
    if (!ProxyForward.METHODS.contains(exchange.getRequestMethod())) {
      // XRPC is GET and POST; HttpURLConnection sends none of the others (PATCH, say).
      exchange.sendResponseHeaders(501, -1);
      return;
    }
    try {
      ProxyForward.forward(exchange, target, latency.toMillis(), NOT_FORWARDED);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.sendResponseHeaders(503, -1);
    }
  }

  /** Stops listening and lets requests in flight finish for up to a second. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    server.stop(1);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "CountingProxy[" + url() + " -> " + target + "]";
  }
}
