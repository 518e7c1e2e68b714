package dev.knotless.runner.state;

/**
 * Where an open pull last ran, or was passed over: its head commit and its base branch's tip.
 *
 * @param head the pull's head commit
 * @param base the base branch's tip it was checked against
 */
public record PullMark(String head, String base) {
  public PullMark {
    StateValues.requireText(head, "a pull's head");
    StateValues.requireText(base, "a pull's base");
  }
}
