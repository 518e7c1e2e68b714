package dev.knotless.storage.push;

import java.util.List;
import java.util.Optional;

/**
 * How a push went, per ref in the order asked. {@code landed} says some write reached the PDS,
 * which is what starts a due compaction. Immutable.
 */
public record PushResult(List<Outcome> outcomes, boolean landed) {
  public PushResult {
    outcomes = List.copyOf(outcomes);
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
