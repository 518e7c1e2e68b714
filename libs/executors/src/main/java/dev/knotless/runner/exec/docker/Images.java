package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.PullImageResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.PullResponseItem;
import dev.knotless.atproto.Printable;
import dev.knotless.runner.exec.StepHost;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Makes sure a run's image is on the daemon: one already there is used as it is, one missing is
 * pulled, with what the pull says written to the run's log, within the time the run's start has.
 * Stateless.
 */
final class Images {

  private Images() {}

  static void ensure(DockerClient docker, String image, Consumer<String> log, Duration limit)
      throws StepHost.StartFailed, InterruptedException {
    try {
      docker.inspectImageCmd(image).exec();
      return;
    } catch (NotFoundException missing) {
      // Pulled below.
    }
    log.accept("pulling " + image);
    String[] last = {""};
    PullImageResultCallback pull =
        new PullImageResultCallback() {
          @Override
          public void onNext(PullResponseItem item) {
            super.onNext(item);
            // One line per change of what the pull says, not per progress tick.
            String said = item.getStatus();
            if (said != null && !said.isBlank() && item.getProgressDetail() == null) {
              String line =
                  Daemon.oneLine((item.getId() == null ? "" : item.getId() + ": ") + said);
              if (!line.equals(last[0])) {
                last[0] = line;
                log.accept("  " + line);
              }
            }
          }
        };
    docker.pullImageCmd(withTag(image)).exec(pull);
    try {
      if (!pull.awaitCompletion(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS)) {
        throw new StepHost.StartFailed(
            "pulling image "
                + Printable.quote(image)
                + " took over "
                + limit.toSeconds()
                + "s, the step limit");
      }
    } catch (RuntimeException e) {
      throw new StepHost.StartFailed(
          "could not pull image " + Printable.quote(image) + ": " + Daemon.why(e), e);
    } finally {
      try {
        pull.close();
      } catch (java.io.IOException ignored) {
        // The stream is done with either way.
      }
    }
  }

  /**
   * The image as the pull asks for it: a name with no tag or digest means {@code latest}, since the
   * Engine API would otherwise pull every tag of it.
   */
  static String withTag(String image) {
    Objects.requireNonNull(image, "image");
    if (image.contains("@")) {
      return image;
    }
    int slash = image.lastIndexOf('/');
    return image.indexOf(':', slash + 1) >= 0 ? image : image + ":latest";
  }
}
