package dev.knotless.bench;

import dev.knotless.testing.kubelet.KubeApiServer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Where a push's run spends its time on the pod path, read from the requests the mock API server
 * saw after the push's ref write, each with when it came: the scheduler making the run's pod, the
 * test kubelet reporting its container running, the scheduler's first exec into it (the checkout's
 * copy), the exec that launches the step, and the pod's deletion. Only the first pod made after the
 * ref write counts: one push, one run, one pod. Not thread-safe: one push at a time.
 */
final class PodTimeline {

  /** What the API server saw of a run's pod, in the order it comes. */
  enum Mark {
    /** The scheduler created the pod. */
    MADE("pod made (scheduler's create)"),
    /** The test kubelet made and started the container and wrote the pod's status Running. */
    STARTED("container running (kubelet's status)"),
    /**
     * The scheduler's exec that unpacks the checkout (with the first step's launch, for a pod it
     * made): its watch saw Running, the tar is made.
     */
    COPY("checkout copy starts (unpack exec)"),
    /** The exec that launches the step: the checkout is in (the same exec, for a pod made). */
    STEP("step launched (exec)"),
    /** The scheduler deleted the pod: the step ended, its exit and outputs read. */
    DELETED("pod deleted");

    final String label;

    Mark(String label) {
      this.label = label;
    }
  }

  /** Per push, nanoseconds from the ref write to each mark; absent when it was not seen. */
  record Push(Map<Mark, Long> after, List<String> requests) {}

  private final KubeApiServer api;
  private final List<Push> pushes = new ArrayList<>();
  private long wrote;
  private int from;

  PodTimeline(KubeApiServer api) {
    this.api = api;
  }

  /** The push's ref write was at {@code wroteNanos}; what the API server sees from now counts. */
  void pushed(long wroteNanos) {
    wrote = wroteNanos;
    from = api.timedRequests().size();
  }

  /** The push's check ended: reads what the API server saw since {@link #pushed}. */
  void ended() {
    List<KubeApiServer.Request> all = api.timedRequests();
    Map<Mark, Long> after = new EnumMap<>(Mark.class);
    List<String> lines = new ArrayList<>();
    String pod = null;
    for (KubeApiServer.Request r : all.subList(from, all.size())) {
      String line = r.line();
      long at = r.nanos() - wrote;
      if (!after.containsKey(Mark.MADE)) {
        if (line.startsWith("POST ") && line.endsWith("/pods")) {
          after.put(Mark.MADE, at);
          lines.add(String.format("%6d ms  %s", at / 1_000_000, line));
        }
        continue;
      }
      int named = line.indexOf("/pods/");
      if (pod == null && named > 0) {
        // The watches and lists name no pod in their path: the first path that names one after
        // the create (the kubelet's read of it) names the pod made.
        pod = "/pods/" + line.substring(named + 6).split("[/?]", 2)[0];
      }
      if (pod == null || !line.contains(pod)) {
        continue;
      }
      lines.add(String.format("%6d ms  %s", at / 1_000_000, shorten(line)));
      String rest = line.substring(line.indexOf(pod) + pod.length());
      if (rest.equals("/status") && !line.startsWith("GET ")) {
        after.putIfAbsent(Mark.STARTED, at);
      } else if (line.contains("command=knotless-unpack-launch")) {
        // A pod made afresh gets its checkout and its first step's launch in one exec.
        after.putIfAbsent(Mark.COPY, at);
        after.putIfAbsent(Mark.STEP, at);
      } else if (line.contains("command=knotless-unpack")) {
        after.putIfAbsent(Mark.COPY, at);
      } else if (line.contains("command=knotless-launch")) {
        after.putIfAbsent(Mark.STEP, at);
      } else if (rest.isEmpty() && line.startsWith("DELETE ")) {
        after.putIfAbsent(Mark.DELETED, at);
      }
    }
    pushes.add(new Push(after, lines));
  }

  List<Push> pushes() {
    return List.copyOf(pushes);
  }

  /**
   * Per mark, the nanoseconds from the mark before it (or the ref write, for the first) to it, one
   * value per push that saw both.
   */
  Map<Mark, long[]> stages() {
    Map<Mark, long[]> out = new EnumMap<>(Mark.class);
    for (Mark m : Mark.values()) {
      List<Long> each = new ArrayList<>();
      for (Push p : pushes) {
        Long to = p.after().get(m);
        Long since =
            m.ordinal() == 0 ? Long.valueOf(0) : p.after().get(Mark.values()[m.ordinal() - 1]);
        if (to != null && since != null) {
          each.add(to - since);
        }
      }
      out.put(m, each.stream().mapToLong(Long::longValue).toArray());
    }
    return out;
  }

  /** A request line without the exec's script: its method, the pod's path, the command's name. */
  private static String shorten(String line) {
    int q = line.indexOf('?');
    if (q < 0) {
      return line;
    }
    int name = line.indexOf("command=knotless-");
    String command = "";
    if (name >= 0) {
      int end = line.indexOf('&', name);
      command = " " + line.substring(name + 8, end < 0 ? line.length() : end);
    }
    return line.substring(0, q) + command;
  }
}
