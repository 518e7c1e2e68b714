package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;

/**
 * The space host's {@code registerNotify}, our reading of it: a member asks that a service ({@code
 * <did>#<id>}) be told of every write in a space, and the host keeps the ask for {@link #KEPT}.
 * After each write it resolves each registered service's endpoint from its DID document in the PLC
 * directory, afresh, and posts {@code com.atproto.space.notifyWrite} there ({@code space}, the
 * writer's {@code repo}, its {@code rev}, and {@code for}: the members whose ask it is), with a
 * service token the host signs ({@code iss} the host's did:plc, {@code aud} the service's DID,
 * {@code lxm} the method), so the receiver can tell a forged notification from its word. Delivery
 * is best effort, off the writer's way, one at a time; a service its document does not name, or
 * whose endpoint does not answer, is skipped. Thread-safe.
 */
final class SpaceNotifier implements AutoCloseable {
  /** How long the host keeps an ask: a day, as runner.md says the authority keeps it. */
  static final Duration KEPT = Duration.ofDays(1);

  private static final ObjectMapper JSON = new ObjectMapper();

  private record Ask(String space, String member, String service) {}

  private final URI plc;
  private final Clock clock;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final ExecutorService delivery =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "space-notify");
            t.setDaemon(true);
            return t;
          });
  private final Map<Ask, Instant> asks = new HashMap<>();
  private final AtomicInteger delivered = new AtomicInteger();
  private final AtomicInteger undelivered = new AtomicInteger();

  private final PlcIdentity.Signing host;

  SpaceNotifier(URI plc, Clock clock, PlcIdentity.Signing host) {
    this.plc = plc;
    this.clock = clock;
    this.host = host;
  }

  /** Tells {@code service} that {@code writer} wrote in {@code space}, for {@code members}. */
  void tell(String service, String space, String writer, long rev, List<String> members) {
    ObjectNode body = JSON.createObjectNode();
    body.put("space", space).put("repo", writer).put("rev", Long.toString(rev));
    members.stream().sorted().forEach(body.putArray("for")::add);
    delivery.execute(() -> deliver(service, body));
  }

  /** Keeps {@code member}'s ask for {@code service} (made again, it is kept a day from now). */
  synchronized Instant register(String space, String member, String service)
      throws SpaceStore.Refusal {
    int hash = service.indexOf('#');
    if (!service.startsWith("did:") || hash < 0 || hash == service.length() - 1) {
      throw new SpaceStore.Refusal(
          400, "InvalidRequest", "service must be <did>#<id>, not " + service);
    }
    Instant until = clock.instant().plus(KEPT);
    asks.put(new Ask(space, member, service), until);
    return until;
  }

  /** Forgets every ask of a space deleted. */
  synchronized void forget(String space) {
    asks.keySet().removeIf(a -> a.space().equals(space));
  }

  /**
   * Tells each service asked for in {@code space} that {@code writer} wrote, at {@code rev}.
   *
   * @param member whether a DID is still a member of the space: a member removed is told nothing
   */
  synchronized void written(
      String space, String writer, long rev, BiPredicate<String, String> member) {
    Instant now = clock.instant();
    asks.values().removeIf(until -> !now.isBefore(until));
    Map<String, List<String>> byService = new TreeMap<>();
    asks.keySet().stream()
        .filter(a -> a.space().equals(space) && member.test(space, a.member()))
        .forEach(
            a -> byService.computeIfAbsent(a.service(), s -> new ArrayList<>()).add(a.member()));
    byService.forEach((service, members) -> tell(service, space, writer, rev, members));
  }

  /** How many notifications an endpoint took (2xx), and how many were not delivered. */
  int delivered() {
    return delivered.get();
  }

  int undelivered() {
    return undelivered.get();
  }

  private void deliver(String service, ObjectNode body) {
    try {
      URI endpoint = endpoint(service);
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(endpoint + "/xrpc/com.atproto.space.notifyWrite"))
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json")
              .header(
                  "Authorization",
                  "Bearer "
                      + host.serviceToken(
                          service.substring(0, service.indexOf('#')),
                          "com.atproto.space.notifyWrite"))
              .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
              .build();
      int status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
      (status / 100 == 2 ? delivered : undelivered).incrementAndGet();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      undelivered.incrementAndGet();
    }
  }

  /** The endpoint of {@code <did>#<id>}, from the DID's document in the PLC directory. */
  private URI endpoint(String service) throws Exception {
    int hash = service.indexOf('#');
    String did = service.substring(0, hash);
    String id = service.substring(hash);
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(plc + "/" + did)).timeout(Duration.ofSeconds(5)).build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(did + " does not resolve: " + r.statusCode());
    }
    for (JsonNode s : JSON.readTree(r.body()).path("service")) {
      String sid = s.path("id").asText("");
      if (sid.equals(id) || sid.equals(did + id)) {
        return URI.create(s.path("serviceEndpoint").asText());
      }
    }
    throw new IllegalStateException(did + "'s document names no " + id + " service");
  }

  @Override
  public void close() {
    delivery.shutdownNow();
  }
}
