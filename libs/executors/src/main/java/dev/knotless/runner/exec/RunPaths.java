package dev.knotless.runner.exec;

import java.nio.file.Path;

/**
 * Where one run's files lie on the runner's host, as a {@link StepHost} sees them.
 *
 * @param root the run's private directory under {@code --work}; its name is unique among runs
 * @param checkout the clone of the mirror at the commit, where steps run
 * @param outputs the directory whose files become the check's outputs
 */
public record RunPaths(Path root, Path checkout, Path outputs) {

  /** The run's name: its directory's, unique under the work root, for labels and logs. */
  public String runName() {
    return root.getFileName().toString();
  }
}
