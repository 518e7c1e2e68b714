package dev.knotless.testing.kubelet;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * When the test kubelet did what, by {@link System#nanoTime()}: for each pod, from its watch event
 * to its status written, with the docker daemon's own calls (the container made and started) apart;
 * for each exec, from its request at the API server to the docker exec started, and from the
 * command's end to its status sent. A benchmark subtracts what is the test kubelet's own (the
 * watch's delivery, its API round trips, the exec bridge) from what the container runtime does,
 * which a real kubelet would do too. Thread-safe.
 */
public final class KubeletTimes {

  /**
   * One pod's start as the test kubelet saw it.
   *
   * @param pod the pod's name
   * @param seen its ADDED event reached the kubelet
   * @param runtime nanoseconds spent in the docker daemon's calls that make and start the container
   * @param running the kubelet's status write (phase Running) returned
   */
  public record PodStart(String pod, long seen, long runtime, long running) {}

  /**
   * One exec as the test kubelet served it; 0 for a moment that has not come.
   *
   * @param pod the pod's name
   * @param command the script's name ({@code sh -c SCRIPT NAME ...}), or the first word
   * @param requested the request reached the API server
   * @param created the docker exec was made (the daemon's call returned)
   * @param createTook nanoseconds the docker exec's creation took (the daemon's own)
   * @param started the docker exec's start was sent
   * @param ended the command's output ended
   * @param statusSent its status went to the client
   */
  public record Exec(
      String pod,
      String command,
      long requested,
      long created,
      long createTook,
      long started,
      long ended,
      long statusSent) {

    /**
     * What the mock API server and the bridge spent from the request to asking the daemon for the
     * exec (the WebSocket's upgrade, the kubelet's dispatch); the daemon's own calls are not in it.
     */
    public long bridgeIn() {
      return created == 0 ? 0 : created - createTook - requested;
    }

    /** What the bridge spent after the command ended before its status went out. */
    public long bridgeOut() {
      return statusSent == 0 || ended == 0 ? 0 : statusSent - ended;
    }
  }

  /** One exec's moments as they come, filled in by its session. */
  static final class Clock {
    final String pod;
    final String command;
    final long requested;
    volatile long created;
    volatile long createTook;
    volatile long started;
    volatile long ended;
    volatile long statusSent;

    Clock(String pod, String command, long requested) {
      this.pod = pod;
      this.command = command;
      this.requested = requested;
    }

    Exec read() {
      return new Exec(pod, command, requested, created, createTook, started, ended, statusSent);
    }
  }

  private final List<PodStart> pods = new CopyOnWriteArrayList<>();
  private final List<Clock> execs = new CopyOnWriteArrayList<>();

  void pod(PodStart start) {
    pods.add(start);
  }

  Clock exec(String pod, String command, long requested) {
    Clock c = new Clock(pod, command, requested);
    execs.add(c);
    return c;
  }

  /** Every pod started so far, in the order each became Running. */
  public List<PodStart> pods() {
    return List.copyOf(pods);
  }

  /** Every exec so far, in the order their requests came, as far as each has gone. */
  public List<Exec> execs() {
    return execs.stream().map(Clock::read).toList();
  }
}
