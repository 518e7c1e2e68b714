package dev.knotless.runner.doorbell;

import java.util.Locale;
import java.util.Objects;

/**
 * One record change as an event source reports it: whose repository, which collection and record
 * key, and what happened. It is unverified (a frame is unsigned), so it can only ring a door.
 *
 * <p>Immutable and thread-safe.
 *
 * @param did the DID of the account whose repository changed
 * @param collection the record's collection NSID
 * @param rkey the record key
 * @param operation create, update or delete
 */
public record RecordChange(String did, String collection, String rkey, Operation operation) {
  public RecordChange {
    Objects.requireNonNull(did, "did");
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(rkey, "rkey");
    Objects.requireNonNull(operation, "operation");
  }

  /** What happened to the record. */
  public enum Operation {
    CREATE,
    UPDATE,
    DELETE;

    /**
     * Reads {@code create}, {@code update} or {@code delete} (any case), as Jetstream's {@code
     * operation} and the firehose's {@code action} spell them.
     *
     * @throws IllegalArgumentException naming the value if it is none of them
     */
    public static Operation parse(String text) {
      if (text != null) {
        switch (text.toLowerCase(Locale.ROOT)) {
          case "create":
            return CREATE;
          case "update":
            return UPDATE;
          case "delete":
            return DELETE;
          default:
            break;
        }
      }
      throw new IllegalArgumentException(
          "operation must be create, update or delete, got \"" + text + "\"");
    }
  }
}
