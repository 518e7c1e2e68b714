package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Network;
import dev.knotless.runner.exec.StepHost;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network runs join ({@code --network}): one already there is used as it is; one missing is
 * made as a bridge with traffic between its containers turned off, so a run reaches no other run.
 * Runs starting at once get the one network however many start, and join it by its ID, never its
 * name, since docker lets two networks share a name and then refuses the name as ambiguous (a
 * container is made on the ID and its endpoint pinned to it before it starts: {@link
 * ContainerHost}).
 *
 * <p>Within this JVM, ensuring a network is serialized per daemon and name, so one run makes it and
 * the others find it. Another process of the same runner on the same daemon can still make one at
 * the same moment (the daemon's own duplicate check is not atomic), so after making one, the
 * networks of that name are listed and one is kept by a rule every process reads alike: the oldest
 * by creation time, then the least ID. The others of this runner's that no container has joined are
 * removed; one a container has joined stays, and a sweep removes it once idle.
 *
 * <p>The idle sweep ({@link DockerExecutor#removeLeftovers}) removes this runner's networks only
 * while no run of its executor is going, deciding that and removing under the lock a run's start
 * waits on, so within a process a network ensured for a run stays until its container has joined it
 * (a network with a container on it cannot be removed). Another process's sweep, or its removal of
 * a duplicate, may still remove it between the ensure and the container's start; the start then
 * fails with the network not found, and {@link ContainerHost} ensures it again and retries.
 *
 * <p>Thread-safe and stateless but for the locks.
 */
final class Networks {

  /** Docker's bridge option that turns traffic between a network's containers off. */
  static final String NO_ICC = "com.docker.network.bridge.enable_icc";

  /** The network kept of several that share a name: the oldest, then the least ID. */
  static final Comparator<Network> KEPT_FIRST =
      Comparator.comparing((Network n) -> n.getCreated() == null ? new Date(0) : n.getCreated())
          .thenComparing(Network::getId);

  private static final Logger LOG = LoggerFactory.getLogger(Networks.class);

  /** One lock per daemon and network name, shared by every executor in the JVM. */
  private static final Map<String, Object> ENSURING = new ConcurrentHashMap<>();

  private Networks() {}

  /**
   * The ID of the network {@code name}, made first if missing.
   *
   * @param daemon the daemon's address, which with the name keys the lock
   * @throws StepHost.StartFailed when there is none and none can be made
   */
  static String ensure(DockerClient docker, String daemon, String name, String runnerDid)
      throws StepHost.StartFailed {
    synchronized (ENSURING.computeIfAbsent(daemon + " " + name, k -> new Object())) {
      List<Network> found = named(docker, name);
      if (found.size() == 1) {
        return found.get(0).getId();
      }
      if (found.size() > 1) {
        return keepOne(docker, found, name, runnerDid);
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
      } catch (DockerException e) {
        // Another process's run made it first (a conflict), or it could not be made.
        if (named(docker, name).isEmpty()) {
          throw new StepHost.StartFailed(
              "could not make the network " + name + ": " + Daemon.why(e), e);
        }
      }
      return keepOne(docker, named(docker, name), name, runnerDid);
    }
  }

  /**
   * Whether {@code e}, from a container's create or start, says its network is gone: another
   * process removed it after it was ensured.
   */
  static boolean gone(DockerException e) {
    String why = Daemon.why(e);
    return e instanceof NotFoundException
        && why.startsWith("network ")
        && why.endsWith(" not found");
  }

  /**
   * Whether {@code e}, from a container's create or start, says its network's name is ambiguous:
   * another process made a network of the same name at once, and has not removed it yet.
   */
  static boolean ambiguous(DockerException e) {
    String why = Daemon.why(e);
    return why.startsWith("network ") && why.contains(" is ambiguous");
  }

  /**
   * The one network to use of those {@code found} called {@code name} (kept first), the others of
   * this runner's removed if unused.
   */
  private static String keepOne(
      DockerClient docker, List<Network> found, String name, String runnerDid)
      throws StepHost.StartFailed {
    if (found.isEmpty()) {
      throw new StepHost.StartFailed("the network " + name + " went as soon as it was made");
    }
    Network kept = found.get(0);
    for (Network extra : found.subList(1, found.size())) {
      if (!runnerDid.equals(
          extra.getLabels() == null ? null : extra.getLabels().get(Labels.RUNNER))) {
        continue; // not ours: never touched
      }
      try {
        docker.removeNetworkCmd(extra.getId()).exec();
        LOG.info(
            "removed network {} {}, made at once with {}", name, shortId(extra), shortId(kept));
      } catch (DockerException joined) {
        // A container is on it or it is gone already: either way it is not the one used.
        LOG.debug("network {} {} stays: {}", name, shortId(extra), Daemon.why(joined));
      }
    }
    return kept.getId();
  }

  /** The networks called exactly {@code name}, the one to keep first. */
  static List<Network> named(DockerClient docker, String name) {
    // The daemon's name filter matches parts of names too.
    return docker.listNetworksCmd().withNameFilter(name).exec().stream()
        .filter(n -> name.equals(n.getName()))
        .sorted(KEPT_FIRST)
        .toList();
  }

  private static String shortId(Network n) {
    return n.getId().length() > 12 ? n.getId().substring(0, 12) : n.getId();
  }
}
