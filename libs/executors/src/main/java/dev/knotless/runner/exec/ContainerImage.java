package dev.knotless.runner.exec;

import java.util.Objects;

/**
 * The container image a workflow names, an {@link ExecutorOptions} option that executors running
 * steps in containers (docker, pod) decode and the shell executor ignores. Immutable.
 *
 * @param image the image reference, such as {@code node:22}; never blank
 */
public record ContainerImage(String image) {

  /** Checks the reference. */
  public ContainerImage {
    Objects.requireNonNull(image, "image");
    if (image.isBlank()) {
      throw new IllegalArgumentException("a container image cannot be blank");
    }
  }

  /** The image a workflow names, if it names one (null or blank: none). */
  public static java.util.Optional<ContainerImage> named(String image) {
    return image == null || image.isBlank()
        ? java.util.Optional.empty()
        : java.util.Optional.of(new ContainerImage(image));
  }

  /**
   * The image {@code spec} runs in: the workflow's, else {@code executorDefault} (the executor's
   * {@code --image}). The one place the default is applied.
   */
  public static String of(RunSpec spec, String executorDefault) {
    return spec.options()
        .find(ContainerImage.class)
        .map(ContainerImage::image)
        .orElse(executorDefault);
  }
}
