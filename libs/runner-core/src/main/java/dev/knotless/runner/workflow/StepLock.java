package dev.knotless.runner.workflow;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The lock file, {@code .knotless/lock.json}: for each repository a {@code uses} step names, the
 * account, repository key and commit its step files are read at. A step never names a revision
 * itself, so what a workflow runs changes only with a commit to the lock. Immutable.
 *
 * <pre>
 * {"steps": {"alice.example/tools": {"did": "did:plc:…", "key": "3kabc…", "commit": "<40 hex>"}}}
 * </pre>
 */
public final class StepLock {

  /** Where the lock file is in a repository. */
  public static final String PATH = ".knotless/lock.json";

  /** One repository, locked. */
  public record Locked(String did, String key, String commit) {}

  /** A repository with no lock file: it locks nothing. */
  public static final StepLock NONE = new StepLock(Map.of());

  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
  private static final Pattern DID = Pattern.compile("did:[a-z]+:[A-Za-z0-9._:%-]+");
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9._~:-]{1,512}");

  private final Map<String, Locked> entries;

  private StepLock(Map<String, Locked> entries) {
    this.entries = Map.copyOf(entries);
  }

  /**
   * Parses the lock file.
   *
   * @throws IllegalArgumentException naming the entry and what is wrong
   */
  public static StepLock parse(byte[] content) {
    JsonNode root;
    try {
      root = JSON.readTree(content);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(PATH + " is not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException(PATH + " cannot be read: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject() || !root.path("steps").isObject()) {
      throw new IllegalArgumentException(PATH + " must be an object with an object \"steps\"");
    }
    Map<String, Locked> out = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = root.get("steps").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String where = PATH + " steps." + e.getKey();
      JsonNode v = e.getValue();
      String did = v.path("did").asText("");
      String key = v.path("key").asText("");
      String commit = v.path("commit").asText("");
      if (!DID.matcher(did).matches()) {
        throw new IllegalArgumentException(where + ".did must be a DID");
      }
      if (!KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(where + ".key must be the repository's record key");
      }
      if (!SHA.matcher(commit).matches()) {
        throw new IllegalArgumentException(where + ".commit must be a full commit id");
      }
      out.put(e.getKey(), new Locked(did, key, commit));
    }
    return new StepLock(out);
  }

  /** The entry for {@code <owner>/<repository>}, as a {@code uses} step writes it. */
  public Optional<Locked> find(String repo) {
    return Optional.ofNullable(entries.get(repo));
  }

  /** Every account the lock names. */
  public Set<String> accounts() {
    Set<String> out = new LinkedHashSet<>();
    entries.values().forEach(l -> out.add(l.did()));
    return out;
  }
}
