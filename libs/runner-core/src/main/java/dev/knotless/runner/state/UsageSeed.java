package dev.knotless.runner.state;

import dev.knotless.runner.schedule.UsageLedger;
import java.util.Map;

/** Fills the scheduler's usage ledger from the state at start. Stateless. */
public final class UsageSeed {
  private UsageSeed() {}

  /**
   * Adds every repository's {@code used} and {@code used_private} days to the ledger, under the
   * repository's owner (the part of {@code <owner did>/<repo key>} before the slash).
   */
  public static void into(UsageLedger ledger, StateStore store) {
    for (String repo : store.repositories()) {
      int slash = repo.lastIndexOf('/');
      if (slash <= 0) {
        throw new IllegalArgumentException(
            "state names repository \"" + repo + "\", not <owner did>/<repo key>");
      }
      String owner = repo.substring(0, slash);
      store
          .load(repo)
          .ifPresent(
              s -> {
                for (Map.Entry<java.time.LocalDate, Long> d : s.used().entrySet()) {
                  ledger.add(owner, false, d.getKey(), d.getValue());
                }
                for (Map.Entry<java.time.LocalDate, Long> d : s.usedPrivate().entrySet()) {
                  ledger.add(owner, true, d.getKey(), d.getValue());
                }
              });
    }
  }
}
