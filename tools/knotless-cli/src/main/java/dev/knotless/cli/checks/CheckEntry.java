package dev.knotless.cli.checks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * One check record as read from a runner's account, kept whole so that {@code --json} gives back
 * every field, and read leniently for display: a status or step status this version does not know
 * is shown as written rather than failing the listing.
 *
 * @param runner the DID of the runner whose account holds it
 * @param uri its AT-URI
 * @param cid its CID
 * @param tail its record key with the repository's part ({@code <h(owner)>.<repo key>.}) cut off
 * @param value the record as the PDS returned it
 */
public record CheckEntry(String runner, String uri, String cid, String tail, JsonNode value) {

  /** One step as the record names it. */
  public record Step(String name, String status, Instant startedAt, Instant endedAt, String note) {}

  /** The record key. */
  public String rkey() {
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  public String workflow() {
    return text("workflow");
  }

  public String ref() {
    return text("ref");
  }

  public String commit() {
    return text("commit");
  }

  public String status() {
    return text("status");
  }

  public String note() {
    return text("note");
  }

  public Instant createdAt() {
    return time(value, "createdAt");
  }

  public Instant startedAt() {
    return time(value, "startedAt");
  }

  public Instant endedAt() {
    return time(value, "endedAt");
  }

  /** True once the status is one a check ends with, known or not: neither queued nor running. */
  public boolean ended() {
    return !status().equals("queued") && !status().equals("running") && !status().isEmpty();
  }

  /** When it started, else when it was filed: what "newest" orders by. */
  public Instant when() {
    Instant s = startedAt();
    return s != null ? s : createdAt();
  }

  /** The steps, in order. */
  public List<Step> steps() {
    List<Step> out = new ArrayList<>();
    for (JsonNode s : value.path("steps")) {
      out.add(
          new Step(
              s.path("name").asText(""),
              s.path("status").asText(""),
              time(s, "startedAt"),
              time(s, "endedAt"),
              s.hasNonNull("note") ? s.path("note").asText() : null));
    }
    return out;
  }

  /** The log blob's CID, or null while it has none. */
  public String logCid() {
    JsonNode ref = value.path("log").path("ref");
    return ref.path("$link").isTextual() ? ref.path("$link").asText() : null;
  }

  /** The log blob's size in bytes as the record says, or -1. */
  public long logSize() {
    return value.path("log").path("size").asLong(-1);
  }

  /** What {@code --json} prints: where the record is, and the record exactly as read. */
  public ObjectNode toJson() {
    ObjectNode n = Json.object();
    n.put("uri", uri);
    n.put("cid", cid);
    n.put("runner", runner);
    n.put("rkey", rkey());
    n.set("record", value.deepCopy());
    return n;
  }

  private String text(String field) {
    JsonNode v = value.get(field);
    return v != null && v.isTextual() ? v.asText() : "";
  }

  private static Instant time(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !v.isTextual()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(v.asText()).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
