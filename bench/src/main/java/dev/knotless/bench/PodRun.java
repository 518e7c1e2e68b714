package dev.knotless.bench;

import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.KubeletTimes;
import java.util.ArrayList;
import java.util.List;

/**
 * One pod run as the mock API server and the test kubelet saw it, from its hand-off to its first
 * line: when each stage came ({@link PodVsDockerBench}'s stages), how many requests and execs came
 * before the first line, and how much of it was the test kubelet's and the mock server's own (the
 * watch's delivery of the new pod, the kubelet's work to Running besides docker's, each exec's
 * bridge before docker is asked and after the command ended).
 */
record PodRun(
    long[] stages,
    long kubeletShare,
    int requestsBeforeFirstLine,
    int execsBeforeFirstLine,
    List<String> lines) {

  static PodRun read(
      long begin,
      long firstLine,
      List<KubeApiServer.Request> requests,
      List<KubeletTimes.PodStart> pods,
      List<KubeletTimes.Exec> execs) {
    KubeletTimes.PodStart pod = onlyPod(pods);
    long posted = 0;
    int before = 0;
    List<String> lines = new ArrayList<>();
    for (KubeApiServer.Request r : requests) {
      if (r.nanos() > firstLine) {
        break;
      }
      before++;
      if (posted == 0 && r.line().startsWith("POST ") && r.line().endsWith("/pods")) {
        posted = r.nanos();
      }
      lines.add(String.format("%6d ms  %s", (r.nanos() - begin) / 1_000_000, shorten(r.line())));
    }
    long share = startShare(pod, posted);
    long firstExec = 0;
    long launch = 0;
    int execCount = 0;
    for (KubeletTimes.Exec e : execs) {
      if (!e.pod().equals(pod.pod()) || e.requested() > firstLine) {
        continue;
      }
      execCount++;
      firstExec = firstExec == 0 ? e.requested() : firstExec;
      if (launch == 0 && e.command().startsWith("knotless-") && e.command().endsWith("launch")) {
        launch = e.requested();
      }
      share += e.bridgeIn();
      if (e.statusSent() != 0 && e.statusSent() < firstLine) {
        share += e.bridgeOut();
      }
    }
    long[] at = {posted, pod.seen(), pod.running(), firstExec, launch, firstLine};
    long[] stages = new long[at.length];
    for (int i = 0; i < at.length; i++) {
      stages[i] = at[i] == 0 ? 0 : at[i] - begin;
    }
    return new PodRun(stages, share, before, execCount, lines);
  }

  /** The one pod a run started; a run that started another number of pods is not one to read. */
  static KubeletTimes.PodStart onlyPod(List<KubeletTimes.PodStart> pods) {
    if (pods.size() != 1) {
      throw new IllegalStateException("one pod run started " + pods.size() + " pods");
    }
    return pods.get(0);
  }

  /**
   * The test kubelet's and mock server's own share of starting {@code pod}, posted at {@code
   * posted}: until the kubelet saw it, and from then to Running less the container runtime's time.
   */
  static long startShare(KubeletTimes.PodStart pod, long posted) {
    return (pod.seen() - posted) + (pod.running() - pod.seen() - pod.runtime());
  }

  /** A request line without the exec's script: its method, path and the command's name. */
  private static String shorten(String line) {
    int q = line.indexOf('?');
    if (q < 0) {
      return line;
    }
    int name = line.indexOf("command=knotless-");
    if (name < 0) {
      return line.length() > 140 ? line.substring(0, 140) + "..." : line;
    }
    int end = line.indexOf('&', name);
    return line.substring(0, q) + " " + line.substring(name + 8, end < 0 ? line.length() : end);
  }
}
