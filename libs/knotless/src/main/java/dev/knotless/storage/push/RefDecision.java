package dev.knotless.storage.push;

import dev.knotless.storage.records.RefRecord;

/** What a push does with one requested ref. A closed set; immutable values. */
public sealed interface RefDecision {
  RefUpdate update();

  /** The ref is already at the target (or already absent): nothing is written. */
  record UpToDate(RefUpdate update) implements RefDecision {}

  /** A new ref: its record is created at the time in milliseconds, with no claim. */
  record Create(RefUpdate update, RefRecord previous) implements RefDecision {}

  /** A move of a live ref: a claim at its generation, its record at the next. */
  record Move(RefUpdate update, RefRecord current) implements RefDecision {}

  /** A delete of a live ref: a claim at its generation, its record deleted. */
  record Delete(RefUpdate update, RefRecord current) implements RefDecision {}

  /** Refused before anything is written; {@code reason} is what git shows the user. */
  record Refused(RefUpdate update, String reason) implements RefDecision {}
}
