package dev.knotless.storage.push;

import java.util.List;
import java.util.Optional;

/**
 * How a push went, per ref in the order asked. {@code landed} says some write reached the PDS,
 * which is what lets a due compaction start. {@code packs} is how many packs the repository holds
 * after a push that landed, counted beside its first write when the pusher was asked to ({@link
 * Pusher#countingPacks}), or null when not counted. Immutable.
 */
public record PushResult(List<Outcome> outcomes, boolean landed, Integer packs) {
  public PushResult {
    outcomes = List.copyOf(outcomes);
  }

  /** A result with no pack count. */
  public PushResult(List<Outcome> outcomes, boolean landed) {
    this(outcomes, landed, null);
  }

  /** One ref's outcome: ok, or the error git shows ({@code error} is null when ok). */
  public record Outcome(String ref, String error) {
    public boolean ok() {
      return error == null;
    }
  }

  public Optional<Outcome> outcome(String ref) {
    return outcomes.stream().filter(o -> o.ref().equals(ref)).findFirst();
  }

  public boolean allOk() {
    return outcomes.stream().allMatch(Outcome::ok);
  }
}
