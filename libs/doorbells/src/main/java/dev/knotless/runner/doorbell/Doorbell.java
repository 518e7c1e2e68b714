package dev.knotless.runner.doorbell;

import java.util.Objects;

/**
 * Why a repository's door was rung: the closed set of reasons a reconcile pass can be woken for. A
 * reason says only why to look again, never what to run; the pass reads that from the owner's PDS.
 *
 * <p>Every reason is an immutable value with value equality, so the reasons of coalesced rings
 * collect in a {@code Set} without repeats. {@link #toString()} is a short lowercase label for logs
 * ({@code frame dev.knotless.ref}, {@code connect jetstream}, {@code sweep}, {@code retry}, {@code
 * asked}, {@code notice}).
 */
public sealed interface Doorbell
    permits Doorbell.Frame,
        Doorbell.Connect,
        Doorbell.Sweep,
        Doorbell.Retry,
        Doorbell.Asked,
        Doorbell.Notice {

  /** A sweep: every door, every {@code --sweep} seconds. */
  Doorbell SWEEP = new Sweep();

  /** A failed pass ringing its own door again. */
  Doorbell RETRY = new Retry();

  /** Someone asked for a pass by hand (an API call, a command). */
  Doorbell ASKED = new Asked();

  /** The merge queue's records, read again every {@code --notice} seconds, changed. */
  Doorbell NOTICE = new Notice();

  /** A frame changed a record of {@code collection}. */
  static Doorbell frame(String collection) {
    return new Frame(collection);
  }

  /** A connection of {@code source} ({@code jetstream}, {@code firehose}) was made. */
  static Doorbell connect(String source) {
    return new Connect(source);
  }

  /**
   * A Jetstream or firehose frame changed a record of this collection that concerns the door.
   *
   * @param collection the NSID of the record's collection, such as {@code dev.knotless.ref}
   */
  record Frame(String collection) implements Doorbell {
    public Frame {
      Objects.requireNonNull(collection, "collection");
    }

    @Override
    public String toString() {
      return "frame " + collection;
    }
  }

  /**
   * A connection to an event source was made, so whatever passed while it was down must be looked
   * at.
   *
   * @param source the source's name, {@code jetstream} or {@code firehose}
   */
  record Connect(String source) implements Doorbell {
    public Connect {
      Objects.requireNonNull(source, "source");
    }

    @Override
    public String toString() {
      return "connect " + source;
    }
  }

  /** The periodic sweep. Use {@link Doorbell#SWEEP}. */
  record Sweep() implements Doorbell {
    @Override
    public String toString() {
      return "sweep";
    }
  }

  /** A failed pass ringing again. Use {@link Doorbell#RETRY}. */
  record Retry() implements Doorbell {
    @Override
    public String toString() {
      return "retry";
    }
  }

  /** A manual request. Use {@link Doorbell#ASKED}. */
  record Asked() implements Doorbell {
    @Override
    public String toString() {
      return "asked";
    }
  }

  /** The merge queue's records changed since the last pass read them. Use {@link #NOTICE}. */
  record Notice() implements Doorbell {
    @Override
    public String toString() {
      return "notice";
    }
  }
}
