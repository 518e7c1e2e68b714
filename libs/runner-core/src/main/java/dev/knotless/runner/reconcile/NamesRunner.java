package dev.knotless.runner.reconcile;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Whether a repository found with {@code --discover} is one to watch: its record, as read from the
 * owner's PDS (never as the appview or a frame tells it), names the runner's DID in {@code runners}
 * and the repository is not archived ({@code archivedAt} set). Stateless.
 */
public enum NamesRunner {
  /** Watch it. */
  YES,
  /** Its record does not name the runner: pass it over, or leave it. */
  NOT_NAMED,
  /** It is archived: pass it over, or leave it. */
  ARCHIVED,
  /** There is no such record: pass it over, or leave it. */
  NO_RECORD;

  /**
   * Judges a repository record's value.
   *
   * @param record the value read from the owner's PDS, or null when there is none
   */
  public static NamesRunner judge(String runnerDid, JsonNode record) {
    if (record == null || record.isMissingNode() || record.isNull()) {
      return NO_RECORD;
    }
    boolean named = false;
    for (JsonNode r : record.path("runners")) {
      named |= r.isTextual() && r.asText().equals(runnerDid);
    }
    if (!named) {
      return NOT_NAMED;
    }
    JsonNode archived = record.path("archivedAt");
    return archived.isTextual() && !archived.asText().isEmpty() ? ARCHIVED : YES;
  }

  /** Why a repository is not watched, for the log. */
  public String why() {
    return switch (this) {
      case YES -> "its record names this runner";
      case NOT_NAMED -> "its record does not name this runner";
      case ARCHIVED -> "it is archived";
      case NO_RECORD -> "its record is gone";
    };
  }
}
