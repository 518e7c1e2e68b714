package dev.knotless.runner.pull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;

/**
 * A {@code dev.knotless.pull} record as the runner reads it: who wrote it, the base branch it would
 * merge into and the head branch it brings. Immutable.
 *
 * @param uri the record's AT-URI, {@code at://<author did>/dev.knotless.pull/<rkey>}
 * @param author the DID of the account that holds it
 * @param base the repository and branch it would merge into
 * @param head the repository and branch it brings
 * @param draft whether it is marked a draft (checked all the same)
 */
public record PullRecord(String uri, String author, Branch base, Branch head, boolean draft) {

  /** The record's collection. */
  public static final String COLLECTION = "dev.knotless.pull";

  private static final Pattern REPO_URI =
      Pattern.compile(
          "at://(did:[a-z]+:[A-Za-z0-9._:%-]+)/dev\\.knotless\\.repo/([A-Za-z0-9._~-]{1,100})");
  private static final Pattern PULL_URI =
      Pattern.compile(
          "at://(did:[a-z]+:[A-Za-z0-9._:%-]+)/dev\\.knotless\\.pull/([A-Za-z0-9._:~-]+)");

  /**
   * One branch of one repository.
   *
   * @param did the repository's owner
   * @param name the repository's name, its record key
   * @param key the repository's key (a TID)
   * @param ref the full ref name, {@code refs/heads/<branch>}
   */
  public record Branch(String did, String name, String key, String ref) {
    /** The repository record's AT-URI. */
    public String repoUri() {
      return "at://" + did + "/dev.knotless.repo/" + name;
    }
  }

  /** The record key: {@code <base repo key>.<tid>}, which sorts pulls by when they were made. */
  public String rkey() {
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  /**
   * Reads a pull record.
   *
   * @throws IllegalArgumentException naming what is wrong: a bad AT-URI, a missing or malformed
   *     base or head
   */
  public static PullRecord parse(String uri, JsonNode value) {
    var m = uri == null ? null : PULL_URI.matcher(uri);
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException("\"" + uri + "\" is not a pull record's AT-URI");
    }
    Branch base = branch(value.path("base"), "base");
    Branch head = branch(value.path("head"), "head");
    return new PullRecord(uri, m.group(1), base, head, value.path("draft").asBoolean(false));
  }

  private static Branch branch(JsonNode n, String which) {
    if (!n.isObject()) {
      throw new IllegalArgumentException("the pull has no " + which);
    }
    String repo = n.path("repo").asText("");
    var m = REPO_URI.matcher(repo);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "its " + which + " repository \"" + repo + "\" is not a dev.knotless.repo AT-URI");
    }
    String key = n.path("key").asText("");
    if (!key.matches("[a-z2-7]{13}")) {
      throw new IllegalArgumentException(
          "its " + which + " key \"" + key + "\" is not a repository key (a TID)");
    }
    String ref = n.path("ref").asText("");
    if (!ref.startsWith("refs/heads/") || ref.length() == "refs/heads/".length()) {
      throw new IllegalArgumentException(
          "its " + which + " \"" + ref + "\" is not a branch's full ref (refs/heads/...)");
    }
    return new Branch(m.group(1), m.group(2), key, ref);
  }
}
