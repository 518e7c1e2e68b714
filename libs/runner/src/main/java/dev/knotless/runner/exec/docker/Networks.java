package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.knotless.runner.exec.StepHost;
import java.util.Map;

/**
 * The network runs join ({@code --network}): one already there is used as it is; one missing is
 * made as a bridge with traffic between its containers turned off, so a run reaches no other run.
 * Two runs starting at once may both find it missing: the one whose make loses finds the other's,
 * which is as good. Stateless.
 */
final class Networks {

  /** Docker's bridge option that turns traffic between a network's containers off. */
  static final String NO_ICC = "com.docker.network.bridge.enable_icc";

  private Networks() {}

  static void ensure(DockerClient docker, String name, String runnerDid)
      throws StepHost.StartFailed {
    if (exists(docker, name)) {
      return;
    }
    try {
      docker
          .createNetworkCmd()
          .withName(name)
          .withDriver("bridge")
          .withCheckDuplicate(true)
          .withOptions(Map.of(NO_ICC, "false"))
          .withLabels(Labels.network(runnerDid))
          .exec();
    } catch (ConflictException madeMeanwhile) {
      // Another run's start made it first.
    } catch (DockerException e) {
      if (!exists(docker, name)) {
        throw new StepHost.StartFailed(
            "could not make the network " + name + ": " + Daemon.why(e), e);
      }
    }
  }

  private static boolean exists(DockerClient docker, String name) {
    try {
      docker.inspectNetworkCmd().withNetworkId(name).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }
}
