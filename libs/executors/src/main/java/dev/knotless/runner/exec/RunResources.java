package dev.knotless.runner.exec;

import dev.knotless.atproto.Printable;
import dev.knotless.runner.workflow.ImageNames;
import java.util.Objects;

/**
 * What the container executors (docker and pod) decide alike about a run's image, limits and
 * runtime, so both read the flags the same way. Stateless.
 */
public final class RunResources {

  /** The image of a workflow that names none, when {@code --image} is not given. */
  public static final String DEFAULT_IMAGE = "debian:bookworm-slim";

  private RunResources() {}

  /**
   * Checks the image and limits every container executor takes; a bad one names its flag.
   *
   * @throws IllegalArgumentException naming the flag that is wrong
   */
  public static void check(String image, double cpus, int memoryGiB) {
    Objects.requireNonNull(image, "image");
    if (image.isBlank()) {
      throw new IllegalArgumentException("--image: empty");
    }
    String why = ImageNames.problem(image).orElse(null);
    if (why != null) {
      throw new IllegalArgumentException("--image " + Printable.quote(image) + ": " + why);
    }
    if (!(cpus >= 0) || Double.isInfinite(cpus)) {
      throw new IllegalArgumentException("--cpus " + cpus + ": expected a number above 0");
    }
    if (memoryGiB < 0) {
      throw new IllegalArgumentException("--memory " + memoryGiB + ": expected whole GiB above 0");
    }
  }

  /**
   * The runtime a run starts with: {@code trustedRuntime} for code an owner named with {@code
   * --trust} vouches for, when set, else {@code runtime}; null for the default.
   */
  public static String runtimeFor(boolean trustedCode, String runtime, String trustedRuntime) {
    return trustedCode && trustedRuntime != null ? trustedRuntime : runtime;
  }
}
