package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.RecordCid;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the harness's space host keeps, in memory: spaces by {@code <owner did>/<name>}, each with
 * its members and one repo per member that wrote there (records by collection and key, and blobs),
 * and the sequence {@code listRepos} counts writes by. Every method runs under the host's lock.
 */
final class SpaceStore {

  /** A refusal with an XRPC status, error name and message. */
  static final class Refusal extends Exception {
    final int status;
    final String error;

    Refusal(int status, String error, String message) {
      super(message);
      this.status = status;
      this.error = error;
    }
  }

  static final class Repo {
    final Map<String, TreeMap<String, ObjectNode>> records = new HashMap<>();
    final Map<String, byte[]> blobs = new HashMap<>();
    long seq;
  }

  static final class Space {
    final String owner;
    final Set<String> members = new LinkedHashSet<>();
    final Map<String, Repo> repos = new HashMap<>();

    Space(String owner) {
      this.owner = owner;
      members.add(owner);
    }
  }

  private final Map<String, Space> spaces = new HashMap<>();
  private long seq;

  Space create(String owner, String name) throws Refusal {
    String id = owner + "/" + name;
    if (spaces.containsKey(id)) {
      throw new Refusal(400, "SpaceAlreadyExists", "the space " + id + " already exists");
    }
    Space s = new Space(owner);
    spaces.put(id, s);
    return s;
  }

  Space space(String id) throws Refusal {
    Space s = spaces.get(id);
    if (s == null) {
      throw new Refusal(400, "SpaceNotFound", "there is no space " + id);
    }
    return s;
  }

  /** The space, if {@code did} is its owner. */
  Space owned(String id, String did) throws Refusal {
    Space s = space(id);
    if (!s.owner.equals(did)) {
      throw new Refusal(403, "NotOwner", did + " does not own the space " + id);
    }
    return s;
  }

  /** The space, if {@code did} is a member of it now. */
  Space membered(String id, String did) throws Refusal {
    Space s = space(id);
    if (!s.members.contains(did)) {
      throw new Refusal(403, "NotMember", did + " is not a member of the space " + id);
    }
    return s;
  }

  /** Deletes the space and every member's records and blobs in it. */
  void delete(String id) {
    spaces.remove(id);
  }

  /** The spaces {@code did} owns, by name. */
  List<String> ownedBy(String did) {
    return spaces.entrySet().stream()
        .filter(e -> e.getValue().owner.equals(did))
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  boolean exists(String id) {
    return spaces.containsKey(id);
  }

  /** Applies all of {@code writes} to {@code did}'s repo or none: a create over a record fails. */
  List<ObjectNode> apply(Space s, String spaceId, String did, JsonNode writes) throws Refusal {
    Repo repo = s.repos.computeIfAbsent(did, d -> new Repo());
    Map<String, TreeMap<String, ObjectNode>> next = new HashMap<>();
    repo.records.forEach((c, m) -> next.put(c, new TreeMap<>(m)));
    List<ObjectNode> results = new ArrayList<>();
    for (JsonNode w : writes) {
      String type = w.path("$type").asText("");
      String collection = w.path("collection").asText("");
      String rkey = w.path("rkey").asText("");
      if (collection.isEmpty() || rkey.isEmpty()) {
        throw new Refusal(400, "InvalidRequest", "a write names no collection or rkey");
      }
      TreeMap<String, ObjectNode> c = next.computeIfAbsent(collection, k -> new TreeMap<>());
      ObjectNode result = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      if (type.endsWith("#delete")) {
        c.remove(rkey);
      } else if (type.endsWith("#create") || type.endsWith("#update")) {
        if (type.endsWith("#create") && c.containsKey(rkey)) {
          throw new Refusal(
              400, "RecordAlreadyExists", "a record is already at " + collection + "/" + rkey);
        }
        if (!w.path("value").isObject()) {
          throw new Refusal(400, "InvalidRequest", "a write has no value");
        }
        ObjectNode v = (ObjectNode) w.get("value");
        c.put(rkey, v);
        result.put("uri", "at://" + did + "/" + collection + "/" + rkey);
        result.put("cid", cid(v));
      } else {
        throw new Refusal(400, "InvalidRequest", "a write of no known kind: " + type);
      }
      results.add(result);
    }
    repo.records.clear();
    repo.records.putAll(next);
    repo.seq = ++seq;
    return results;
  }

  private static String cid(ObjectNode v) {
    try {
      return RecordCid.of(v);
    } catch (IllegalArgumentException e) {
      return "b"
          + Hashes.base32(
              Hashes.sha256(v.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }

  /** Keeps a blob in {@code did}'s repo of the space; its CID is a raw CIDv1 of its SHA-256. */
  String putBlob(Space s, String did, byte[] data) {
    byte[] digest = Hashes.sha256(data);
    byte[] cid = new byte[4 + digest.length];
    cid[0] = 0x01;
    cid[1] = 0x55;
    cid[2] = 0x12;
    cid[3] = 0x20;
    System.arraycopy(digest, 0, cid, 4, digest.length);
    String c = "b" + Hashes.base32(cid);
    s.repos.computeIfAbsent(did, d -> new Repo()).blobs.put(c, data);
    return c;
  }

  byte[] blob(Space s, String did, String cid) throws Refusal {
    Repo r = s.repos.get(did);
    byte[] b = r == null ? null : r.blobs.get(cid);
    if (b == null) {
      throw new Refusal(400, "BlobNotFound", "no blob " + cid + " of " + did + " in the space");
    }
    return b;
  }

  ObjectNode record(Space s, String did, String collection, String rkey) throws Refusal {
    Repo r = s.repos.get(did);
    ObjectNode v = r == null ? null : r.records.getOrDefault(collection, new TreeMap<>()).get(rkey);
    if (v == null) {
      throw new Refusal(400, "RecordNotFound", "Could not locate record");
    }
    return v;
  }

  /**
   * Up to {@code limit} keys below the cursor, highest first (above it, lowest first, reversed).
   */
  List<Map.Entry<String, ObjectNode>> page(
      Space s, String did, String collection, int limit, String cursor, boolean reverse) {
    Repo r = s.repos.get(did);
    NavigableMap<String, ObjectNode> all =
        r == null ? new TreeMap<>() : r.records.getOrDefault(collection, new TreeMap<>());
    NavigableMap<String, ObjectNode> range =
        reverse
            ? (cursor == null ? all : all.tailMap(cursor, false))
            : (cursor == null ? all : all.headMap(cursor, false)).descendingMap();
    List<Map.Entry<String, ObjectNode>> out = new ArrayList<>();
    for (Map.Entry<String, ObjectNode> e : range.entrySet()) {
      if (out.size() == limit) {
        break;
      }
      out.add(Map.entry(e.getKey(), e.getValue()));
    }
    return out;
  }

  /** The members' repos written after sequence {@code since}, and the sequence now. */
  long changed(Space s, long since, Map<String, Long> out) {
    s.repos.forEach(
        (did, r) -> {
          if (r.seq > since) {
            out.put(did, r.seq);
          }
        });
    return seq;
  }
}
