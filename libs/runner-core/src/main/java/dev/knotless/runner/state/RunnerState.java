package dev.knotless.runner.state;

import java.util.List;

/**
 * The state file's fields that belong to the runner, not to one repository. Immutable.
 *
 * @param discovered the repositories found naming the runner, as {@code <owner did>/<repo key>},
 *     watched again at a start before the appview is asked
 * @param invited where the last reading of the runner's invites ended (a cursor); empty for none
 */
public record RunnerState(List<String> discovered, String invited) {
  public RunnerState {
    discovered = StateValues.list(discovered);
    invited = invited == null ? "" : invited;
  }

  /** Nothing found yet, no invites read. */
  public static RunnerState empty() {
    return new RunnerState(List.of(), "");
  }

  /** A copy with the repositories found. */
  public RunnerState withDiscovered(List<String> repos) {
    return new RunnerState(repos, invited);
  }

  /** A copy with where the reading of invites ended. */
  public RunnerState withInvited(String cursor) {
    return new RunnerState(discovered, cursor);
  }
}
