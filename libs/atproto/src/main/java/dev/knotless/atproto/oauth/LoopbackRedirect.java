package dev.knotless.atproto.oauth;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one-shot listener an OAuth login on a person's machine is redirected to: HTTP on 127.0.0.1, a
 * port the system picks, path {@code /callback}. The first request to that path ends it; its query
 * parameters are the login's answer. Anything else gets a 404. Closed by {@link #close()}.
 */
public final class LoopbackRedirect implements AutoCloseable {
  private static final String PATH = "/callback";

  private final HttpServer server;
  private final CompletableFuture<Map<String, String>> answer = new CompletableFuture<>();

  private LoopbackRedirect(HttpServer server) {
    this.server = server;
  }

  /** Starts listening. */
  public static LoopbackRedirect start() throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    LoopbackRedirect r = new LoopbackRedirect(s);
    s.createContext("/", r::handle);
    s.start();
    return r;
  }

  /** The redirect address to give the authorization server. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
  }

  /** The redirect's query parameters, once the browser comes back; waits at most {@code wait}. */
  public Map<String, String> await(Duration wait) throws OAuthException {
    try {
      return answer.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new OAuthException(
          "no answer from the browser within " + wait.toSeconds() + " s; nothing was saved",
          "timeout",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OAuthException("interrupted while waiting for the browser", null, e);
    } catch (ExecutionException e) {
      throw new OAuthException(e.getCause().getMessage(), null, e.getCause());
    }
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      if (!PATH.equals(x.getRequestURI().getPath()) || answer.isDone()) {
        x.sendResponseHeaders(404, -1);
        return;
      }
      Map<String, String> params = parse(x.getRequestURI().getRawQuery());
      boolean ok = params.containsKey("code") && !params.containsKey("error");
      byte[] page =
          ("<!doctype html><title>knotless login</title><p>"
                  + (ok
                      ? "knotless has the answer; you can close this window."
                      : "The login did not go through; the command line says why.")
                  + "</p>")
              .getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      x.sendResponseHeaders(200, page.length);
      try (OutputStream out = x.getResponseBody()) {
        out.write(page);
      }
      answer.complete(params);
    }
  }

  static Map<String, String> parse(String query) {
    Map<String, String> m = new LinkedHashMap<>();
    if (query == null) {
      return m;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      m.putIfAbsent(k, v);
    }
    return m;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
