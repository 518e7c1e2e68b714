package dev.knotless.atproto.space;

import java.util.List;

/**
 * One answer of {@code com.atproto.space.listRepos}: the members' repos in a space written since
 * the cursor asked from, each with its revision, and the cursor to ask from next.
 */
public record SpaceRepos(List<Repo> repos, String cursor) {
  public SpaceRepos {
    repos = List.copyOf(repos);
  }

  /** One member's repo in the space and its current revision. */
  public record Repo(String did, String rev) {}
}
