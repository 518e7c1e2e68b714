package dev.knotless.testing;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How {@link CountingProxy} forwards one request: on the thread that took it, over a kept-alive
 * {@link HttpURLConnection} to the target. The blocking connection costs about half the CPU of the
 * JDK's {@code HttpClient}, which hands each request and reply between its own threads; a bench
 * whose two cores the proxy shares with what it measures feels that. Stateless; thread-safe.
 */
final class ProxyForward {
  static {
    // The JDK keeps 5 idle connections a host by default; reconcilers send dozens at once, and a
    // connection not kept is a new one for the next request. Read once, when the JDK's HTTP
    // classes load.
    if (System.getProperty("http.maxConnections") == null) {
      System.setProperty("http.maxConnections", "256");
    }
    // A POST whose kept-alive connection failed is never sent twice: the PDS would see two writes
    // for the one the proxy counted.
    if (System.getProperty("sun.net.http.retryPost") == null) {
      System.setProperty("sun.net.http.retryPost", "false");
    }
  }

  /** The methods HttpURLConnection sends; XRPC uses GET and POST. */
  static final Set<String> METHODS =
      Set.of("GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE");

  private ProxyForward() {}

  /**
   * Forwards {@code exchange} to {@code target} after holding it {@code holdMillis}, and answers
   * with the target's status, headers and body; 502 when the target cannot be reached. {@code
   * notForwarded} names (in lower case) the headers that belong to one connection.
   */
  static void forward(HttpExchange exchange, URI target, long holdMillis, Set<String> notForwarded)
      throws IOException, InterruptedException {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    String rawQuery = exchange.getRequestURI().getRawQuery();
    URI uri =
        target.resolve(
            exchange.getRequestURI().getRawPath() + (rawQuery == null ? "" : "?" + rawQuery));
    String method = exchange.getRequestMethod();
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    c.setInstanceFollowRedirects(false);
    c.setUseCaches(false);
    c.setConnectTimeout(10_000);
    c.setReadTimeout(120_000);
    c.setRequestMethod(method);
    boolean accept = false;
    for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (!notForwarded.contains(name)) {
        accept |= name.equals("accept");
        for (String value : header.getValue()) {
          c.addRequestProperty(header.getKey(), value);
        }
      }
    }
    if (!accept) {
      // HttpURLConnection would send a browser's Accept of its own; none and */* mean the same.
      c.setRequestProperty("Accept", "*/*");
    }
    if (holdMillis > 0) {
      Thread.sleep(holdMillis);
    }
    int status;
    byte[] answer;
    try {
      if (body.length > 0) {
        // Buffered, not streamed: a streamed request answered 401 would lose its error body.
        c.setDoOutput(true);
        try (OutputStream out = c.getOutputStream()) {
          out.write(body);
        }
      }
      status = c.getResponseCode();
      InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
      answer = in == null ? new byte[0] : readAll(in);
    } catch (IOException e) {
      byte[] error =
          ("{\"error\":\"BadGateway\",\"message\":\"counting proxy could not reach "
                  + target
                  + "\"}")
              .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(502, error.length);
      exchange.getResponseBody().write(error);
      return;
    }
    for (Map.Entry<String, List<String>> header : c.getHeaderFields().entrySet()) {
      String name = header.getKey();
      if (name != null && !notForwarded.contains(name.toLowerCase(Locale.ROOT))) {
        exchange.getResponseHeaders().put(name, header.getValue());
      }
    }
    boolean noBody = answer.length == 0 || "HEAD".equals(method);
    exchange.sendResponseHeaders(status, noBody ? -1 : answer.length);
    if (!noBody) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    }
  }

  /** Reads a reply to its end and closes the stream, which returns the connection to the pool. */
  private static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }
}
