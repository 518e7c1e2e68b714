package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;

/**
 * The harness appview's side of space writes, our reading of runner.md: it takes the space host's
 * {@code com.atproto.space.notifyWrite} and passes each write on ({@code
 * dev.knotless.awaitSpaceWrites}, a long poll with a service token) to the runners that are both
 * among those it is for (members that asked the host) and invited by the space's owner. A runner
 * asks from its cursor and is answered as soon as a write for it comes, or with none after {@link
 * #WAIT}. A cursor of another life of the relay (none, or one from before {@link #restart}) or one
 * older than the writes kept is answered at once, with {@code missed}. Keeps the last {@value
 * #KEEP} writes in memory. A notification is taken only with a service token for {@code
 * com.atproto.space.notifyWrite} signed by a space host the appview hears ({@link #hearFrom}); any
 * other is refused and logged. Thread-safe.
 */
final class SpaceWriteRelay {
  /** How long an await waits for a write before answering with none. */
  static final Duration WAIT = Duration.ofSeconds(25);

  static final String AWAIT = "dev.knotless.awaitSpaceWrites";
  static final String NOTIFY = "com.atproto.space.notifyWrite";
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SpaceWriteRelay.class);
  private static final int KEEP = 1000;
  private static final int PAGE = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Write(long seq, String space, String repo, String rev, List<String> forDids) {}

  private final ServiceTokens tokens;
  private final java.util.function.BiPredicate<String, String> invited;
  private final java.util.Map<String, Integer> passed = new java.util.HashMap<>();
  private final Deque<Write> writes = new ArrayDeque<>();
  private final java.util.Set<String> hosts = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
  private String life = UUID.randomUUID().toString();
  private long seq;
  private boolean down;

  /**
   * @param invited whether a runner (first) was invited to a space (second) by the space's owner
   */
  SpaceWriteRelay(ServiceTokens tokens, java.util.function.BiPredicate<String, String> invited) {
    this.tokens = tokens;
    this.invited = invited;
  }

  /** How many writes were passed on to {@code runner} so far. */
  synchronized int passedTo(String runner) {
    return passed.getOrDefault(runner, 0);
  }

  /** Forgets every write and starts a new life, as an appview restarted does. */
  synchronized void restart() {
    writes.clear();
    life = UUID.randomUUID().toString();
    notifyAll();
  }

  /** Has every await waiting answer 503 at once, and each after, till it is up again. */
  synchronized void setDown(boolean down) {
    this.down = down;
    notifyAll();
  }

  /** Takes notifications signed by the space host {@code did}. */
  void hearFrom(String did) {
    hosts.add(did);
  }

  /** Why each notification refused was, in order. */
  List<String> refused() {
    return List.copyOf(refused);
  }

  /** {@code com.atproto.space.notifyWrite}, from the space host. */
  void notifyWrite(HttpExchange ex) throws IOException {
    JsonNode b = JSON.readTree(ex.getRequestBody());
    String space = b.path("space").asText("");
    String why = null;
    int status = 401;
    try {
      String iss = tokens.verify(ex.getRequestHeaders().getFirst("Authorization"), NOTIFY);
      if (!hosts.contains(iss)) {
        why = "signed by " + iss + ", not a space host this appview hears";
        status = 403;
      }
    } catch (ServiceTokens.Refused e) {
      why = e.getMessage();
    }
    if (why != null) {
      String line =
          "refused a notifyWrite of " + dev.knotless.atproto.Printable.escape(space) + ": " + why;
      LOG.warn(line);
      refused.add(line);
      HarnessAppview.send(
          ex,
          status,
          HarnessAppview.error(status == 401 ? "AuthenticationRequired" : "Forbidden", why));
      return;
    }
    String repo = b.path("repo").asText("");
    if (!space.startsWith("did:") || !repo.startsWith("did:") || !b.path("for").isArray()) {
      HarnessAppview.send(
          ex, 400, HarnessAppview.error("InvalidRequest", "space, repo and for are required"));
      return;
    }
    List<String> forDids = new java.util.ArrayList<>();
    b.path("for").forEach(n -> forDids.add(n.asText()));
    synchronized (this) {
      writes.addLast(new Write(++seq, space, repo, b.path("rev").asText(""), forDids));
      while (writes.size() > KEEP) {
        writes.removeFirst();
      }
      notifyAll();
    }
    HarnessAppview.send(ex, 200, JSON.createObjectNode());
  }

  /** {@code dev.knotless.awaitSpaceWrites}: the writes for the caller after its cursor. */
  void await(HttpExchange ex) throws IOException {
    String runner;
    try {
      runner = tokens.verify(ex.getRequestHeaders().getFirst("Authorization"), AWAIT);
    } catch (ServiceTokens.Refused e) {
      HarnessAppview.send(ex, 401, HarnessAppview.error("AuthenticationRequired", e.getMessage()));
      return;
    }
    String cursor = HarnessAppview.params(ex.getRequestURI().getRawQuery()).get("cursor");
    ObjectNode out = answer(runner, cursor);
    if (out == null) {
      HarnessAppview.send(ex, 503, HarnessAppview.error("Unavailable", "the appview is down"));
    } else {
      HarnessAppview.send(ex, 200, out);
    }
  }

  /** The answer, or null when the appview went down meanwhile. */
  private synchronized ObjectNode answer(String runner, String cursor) {
    if (down) {
      return null;
    }
    ObjectNode out = JSON.createObjectNode();
    long from = from(cursor);
    if (from < 0) {
      out.put("cursor", life + "." + seq);
      out.put("missed", true);
      out.putArray("writes");
      return out;
    }
    String asked = life;
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      if (down) {
        return null;
      }
      if (!asked.equals(life)) {
        return answer(runner, null);
      }
      ArrayNode page = JSON.createArrayNode();
      long last = from;
      for (Write w : writes) {
        if (w.seq() > from && page.size() < PAGE) {
          last = w.seq();
          if (w.forDids().contains(runner) && invited.test(runner, w.space())) {
            page.addObject().put("space", w.space()).put("repo", w.repo()).put("rev", w.rev());
          }
        }
      }
      long left = deadline - System.nanoTime();
      if (!page.isEmpty() || left <= 0) {
        passed.merge(runner, page.size(), Integer::sum);
        out.put("cursor", life + "." + last);
        out.set("writes", page);
        return out;
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        out.put("cursor", life + "." + from);
        out.putArray("writes");
        return out;
      }
    }
  }

  /** The sequence a cursor of this life stands at, or -1 for none that can be trusted. */
  private long from(String cursor) {
    if (cursor == null || !cursor.startsWith(life + ".")) {
      return -1;
    }
    try {
      long at = Long.parseLong(cursor.substring(life.length() + 1));
      long oldest = writes.isEmpty() ? seq : writes.peekFirst().seq() - 1;
      return at < oldest || at > seq ? -1 : at;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
