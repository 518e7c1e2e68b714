package dev.knotless.testing.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A list of events with a field selector on {@code involvedObject} ({@code
 * involvedObject.name=POD}, as {@code kubectl describe pod} and the pod executor ask), answered as
 * a real API server does. The mock's CRUD mode knows only {@code metadata.name} and {@code
 * metadata.namespace} as fields and would match no event at all; here those requirements are taken
 * out of the query, the rest go to the CRUD dispatcher, and its items are filtered by them. Only
 * equality ({@code =}, {@code ==}) and inequality ({@code !=}) are read, as the API server's field
 * selectors offer.
 */
final class EventSelector {

  private static final Pattern LIST = Pattern.compile("/api/v1/(namespaces/[^/]+/)?events\\?.*");
  private static final ObjectMapper JSON = new ObjectMapper();

  private EventSelector() {}

  /** The answer to {@code request} if it is such a list, else null for the CRUD dispatcher. */
  static MockResponse dispatch(RecordedRequest request, KubernetesCrudDispatcher crud) {
    String path = request.getPath();
    if (!"GET".equals(request.getMethod()) || !LIST.matcher(path).matches()) {
      return null;
    }
    int q = path.indexOf('?');
    List<String> kept = new ArrayList<>();
    Map<String, String> equal = new LinkedHashMap<>();
    Map<String, String> unequal = new LinkedHashMap<>();
    for (String param : path.substring(q + 1).split("&")) {
      int eq = param.indexOf('=');
      String name = eq < 0 ? param : param.substring(0, eq);
      if ("watch".equals(name)) {
        return null;
      }
      if (!"fieldSelector".equals(name)) {
        kept.add(param);
        continue;
      }
      List<String> rest = new ArrayList<>();
      for (String req :
          URLDecoder.decode(param.substring(eq + 1), StandardCharsets.UTF_8).split(",")) {
        if (!req.startsWith("involvedObject.")) {
          rest.add(req);
        } else if (req.contains("!=")) {
          unequal.put(req.substring(0, req.indexOf("!=")), req.substring(req.indexOf("!=") + 2));
        } else {
          String[] kv = req.split("==?", 2);
          equal.put(kv[0], kv.length < 2 ? "" : kv[1]);
        }
      }
      if (!rest.isEmpty()) {
        kept.add(
            "fieldSelector=" + URLEncoder.encode(String.join(",", rest), StandardCharsets.UTF_8));
      }
    }
    if (equal.isEmpty() && unequal.isEmpty()) {
      return null;
    }
    String base = path.substring(0, q) + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
    MockResponse listed = crud.handleGet(base);
    if (listed.code() != 200) {
      return listed;
    }
    try {
      ObjectNode body = (ObjectNode) JSON.readTree(listed.getBody().readUtf8());
      ArrayNode items = JSON.createArrayNode();
      for (JsonNode item : body.path("items")) {
        if (matches(item, equal, unequal)) {
          items.add(item);
        }
      }
      body.set("items", items);
      return new MockResponse().setResponseCode(200).setBody(JSON.writeValueAsString(body));
    } catch (IOException | ClassCastException e) {
      return new MockResponse().setResponseCode(500).setBody(String.valueOf(e));
    }
  }

  private static boolean matches(
      JsonNode event, Map<String, String> equal, Map<String, String> unequal) {
    for (var e : equal.entrySet()) {
      if (!e.getValue().equals(field(event, e.getKey()))) {
        return false;
      }
    }
    for (var e : unequal.entrySet()) {
      if (e.getValue().equals(field(event, e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** The field at a dotted path ({@code involvedObject.name}), "" when it has none. */
  private static String field(JsonNode node, String path) {
    JsonNode at = node;
    for (String part : path.split("\\.")) {
      at = at.path(part);
    }
    return at.isValueNode() ? at.asText() : "";
  }
}
