package dev.knotless.runner.workflow;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What a {@code uses} step names: a step file in another repository, and the secrets passed to it.
 * Written {@code <owner>/<repository>/<path>}, the owner a handle or a DID as on the runner's
 * command line; the revision comes from the repository's lock file ({@link StepLock}), never from
 * the step. Immutable.
 *
 * @param repo {@code <owner>/<repository>}: the key of its entry in the lock file
 * @param path the step file's path in that repository, such as {@code .knotless/steps/build.yml}
 * @param secrets the secrets passed to the file's steps, by name; each must be one the workflow
 *     lists, and only those the file asks for reach its steps
 */
public record Uses(String repo, String path, List<String> secrets) {

  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._:-]+");

  public Uses {
    secrets = List.copyOf(secrets);
  }

  /**
   * Parses {@code <owner>/<repository>/<path>}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static Uses parse(String text, List<String> secrets) {
    String[] parts = text.split("/", 3);
    if (parts.length < 3 || parts[2].isEmpty()) {
      throw new IllegalArgumentException(
          "must be <owner>/<repository>/<path to a step file>, not \"" + text + "\"");
    }
    for (int i = 0; i < 2; i++) {
      if (!SEGMENT.matcher(parts[i]).matches() || parts[i].equals("..")) {
        throw new IllegalArgumentException(
            "names a bad " + (i == 0 ? "owner" : "repository") + " in \"" + text + "\"");
      }
    }
    String path = parts[2];
    for (String seg : path.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..") || seg.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("names a bad path in \"" + text + "\"");
      }
    }
    if (!(path.endsWith(".yml") || path.endsWith(".yaml") || path.endsWith(".json"))) {
      throw new IllegalArgumentException(
          "must name a .yml, .yaml or .json step file, not \"" + path + "\"");
    }
    return new Uses(parts[0] + "/" + parts[1], path, secrets);
  }

  /** The owner part: a handle or a DID. */
  public String owner() {
    return repo.substring(0, repo.indexOf('/'));
  }

  /** The repository's name. */
  public String name() {
    return repo.substring(repo.indexOf('/') + 1);
  }

  @Override
  public String toString() {
    return repo + "/" + path;
  }
}
