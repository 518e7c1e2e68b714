package dev.knotless.atproto;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Whether a PDS answers its health endpoint ({@code /xrpc/_health}), for readiness checks. Over
 * HTTP/1.1, since the reference PDS drops a request that offers an h2c upgrade. Thread-safe.
 */
public final class PdsHealth {

  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

  private PdsHealth() {}

  /**
   * What one probe found.
   *
   * @param up whether the PDS answered 200
   * @param status the HTTP status, or 0 when none came back
   * @param error why it is down when no status came back, or null
   */
  public record Result(boolean up, int status, String error) {}

  /** Asks {@code pds} once, waiting at most two seconds. */
  public static Result probe(URI pds) {
    try {
      HttpResponse<Void> r =
          HTTP.send(
              HttpRequest.newBuilder(pds.resolve("/xrpc/_health")).timeout(TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.discarding());
      return new Result(r.statusCode() == 200, r.statusCode(), null);
    } catch (IOException e) {
      return new Result(false, 0, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(false, 0, "interrupted");
    }
  }
}
