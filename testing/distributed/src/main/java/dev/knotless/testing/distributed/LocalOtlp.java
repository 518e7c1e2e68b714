package dev.knotless.testing.distributed;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * The harness's OTLP receiver: {@code POST /v1/traces} in OTLP's protobuf over HTTP, on 127.0.0.1,
 * keeping every span it is sent by trace id with the {@code service.name} of its resource. The
 * services' {@code quarkus.otel.exporter.otlp.traces.endpoint} is {@link #endpoint()}.
 */
public final class LocalOtlp implements AutoCloseable {
  /** A span as received: hex ids, the parent's empty for a root, and its string attributes. */
  public record Received(
      String service,
      String traceId,
      String spanId,
      String parentSpanId,
      String name,
      Map<String, String> attributes) {}

  /** A request body larger than this is refused (the exporters send batches far smaller). */
  static final int MAX_BODY = 16 << 20;

  private final HttpServer server;
  private final Map<String, List<Received>> byTrace = new ConcurrentHashMap<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();

  private LocalOtlp(HttpServer server) {
    this.server = server;
  }

  /** Starts a receiver on a free port of 127.0.0.1. */
  public static LocalOtlp start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    LocalOtlp otlp = new LocalOtlp(server);
    server.createContext("/v1/traces", otlp::traces);
    server.start();
    return otlp;
  }

  /** The base the services export to; they post to its {@code /v1/traces}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** The spans of the trace {@code traceId}, as received so far. */
  public List<Received> trace(String traceId) {
    return List.copyOf(byTrace.getOrDefault(traceId, List.of()));
  }

  /** Every span received so far. */
  public List<Received> spans() {
    List<Received> all = new ArrayList<>();
    byTrace.values().forEach(all::addAll);
    return all;
  }

  /** Why each request refused was refused. */
  public List<String> refused() {
    return List.copyOf(refused);
  }

  private void traces(HttpExchange ex) throws IOException {
    try (ex) {
      if (!"POST".equals(ex.getRequestMethod())) {
        answer(ex, 405, new byte[0]);
        return;
      }
      ExportTraceServiceRequest request;
      try (InputStream in = body(ex)) {
        byte[] bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          refused.add("a body over " + MAX_BODY + " bytes");
          answer(ex, 413, new byte[0]);
          return;
        }
        request = ExportTraceServiceRequest.parseFrom(bytes);
      } catch (InvalidProtocolBufferException e) {
        refused.add("not OTLP protobuf: " + e.getMessage());
        answer(ex, 400, new byte[0]);
        return;
      } catch (RuntimeException | LinkageError e) {
        // Said, not swallowed: an exporter only sees its request fail, and logs nothing of it.
        refused.add("the receiver failed: " + e);
        answer(ex, 500, new byte[0]);
        return;
      }
      keep(request);
      ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      answer(ex, 200, ExportTraceServiceResponse.getDefaultInstance().toByteArray());
    }
  }

  private static InputStream body(HttpExchange ex) throws IOException {
    String encoding = ex.getRequestHeaders().getFirst("Content-Encoding");
    InputStream in = ex.getRequestBody();
    return "gzip".equalsIgnoreCase(encoding) ? new GZIPInputStream(in) : in;
  }

  private void keep(ExportTraceServiceRequest request) {
    for (ResourceSpans rs : request.getResourceSpansList()) {
      String service = "";
      for (KeyValue kv : rs.getResource().getAttributesList()) {
        if (kv.getKey().equals("service.name")) {
          service = kv.getValue().getStringValue();
        }
      }
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
          Received r =
              new Received(
                  service,
                  hex(s.getTraceId()),
                  hex(s.getSpanId()),
                  hex(s.getParentSpanId()),
                  s.getName(),
                  strings(s.getAttributesList()));
          byTrace.computeIfAbsent(r.traceId(), k -> new CopyOnWriteArrayList<>()).add(r);
        }
      }
    }
  }

  private static Map<String, String> strings(List<KeyValue> attributes) {
    Map<String, String> out = new java.util.TreeMap<>();
    for (KeyValue kv : attributes) {
      if (kv.getValue().hasStringValue()) {
        out.put(kv.getKey(), kv.getValue().getStringValue());
      }
    }
    return out;
  }

  private static String hex(ByteString id) {
    return HexFormat.of().formatHex(id.toByteArray());
  }

  private static void answer(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
