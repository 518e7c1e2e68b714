package dev.knotless.runner.liveoutput;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * Sends one piece of a run's output to the appview with {@code dev.knotless.putRunOutput}: the
 * check-writer's sends and the all-in-one runner's ({@link LiveOutput}) go through it. Thread-safe.
 */
public final class AppviewSender {
  /** The procedure's NSID. */
  public static final String NSID = "dev.knotless.putRunOutput";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** Gives the service token a call carries, or empty to send none. */
  @FunctionalInterface
  public interface Tokens {
    /** The token for the next call. */
    Optional<String> token() throws IOException;
  }

  private final URI endpoint;
  private final Tokens tokens;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  public AppviewSender(URI appview, Tokens tokens) {
    this.endpoint = appview.resolve("/xrpc/" + NSID);
    this.tokens = tokens;
  }

  /**
   * Sends a piece.
   *
   * @param checkUri the check record's AT-URI
   * @param timeout how long the call may take
   * @return whether the appview says a page follows the run
   * @throws IOException when it failed for any reason, a status other than 200 included
   */
  public boolean send(String checkUri, Send send, Duration timeout) throws IOException {
    return send(checkUri, null, send, timeout);
  }

  /**
   * As {@link #send(String, Send, Duration)}, for a private repository's run when {@code space} is
   * not null: the piece names the space ({@code <owner did>/<name>}), and the appview shows it only
   * to the space's members.
   */
  public boolean send(String checkUri, String space, Send send, Duration timeout)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("check", checkUri);
    if (space != null) {
      body.put("space", space);
    }
    body.put("offset", send.offset());
    body.put("text", send.text());
    ArrayNode steps = body.putArray("steps");
    for (String s : send.progress().stepsEnded()) {
      int eq = s.lastIndexOf('=');
      steps.addObject().put("name", s.substring(0, eq)).put("status", s.substring(eq + 1));
    }
    if (send.progress().stepGoing() != null) {
      body.put("step", send.progress().stepGoing());
    }
    body.put("startedAt", TIME.format(send.progress().startedAt()));
    if (send.ended()) {
      body.put("ended", true);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    Optional<String> token = tokens.token();
    if (token.isPresent()) {
      request.header("Authorization", "Bearer " + token.get());
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(NSID + " interrupted", e);
    }
    if (response.statusCode() != 200) {
      throw new IOException(NSID + " answered " + response.statusCode());
    }
    JsonNode answer = JSON.readTree(response.body());
    return answer != null && answer.path("followed").asBoolean(false);
  }
}
