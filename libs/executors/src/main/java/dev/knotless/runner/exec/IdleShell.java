package dev.knotless.runner.exec;

/**
 * The process that keeps a run's container (docker) or pod up while no step runs, and the two
 * scripts that find it and end what steps left around it. Each script is the argument of {@code sh
 * -c}, uses only what every image with a POSIX shell has, and reads {@code /proc/<pid>/status}
 * only, which runc and gVisor's runsc both give (gVisor lacks {@code
 * /proc/<pid>/task/<tid>/children}, which an earlier version read). docs/executor.md, "What a step
 * leaves", says why each is so.
 *
 * <p>What the sweep spares is decided so that no step can make it spare a process of its own:
 *
 * <ul>
 *   <li>the idle shell's pid is found once, before the first step runs, and kept on the runner's
 *       side; it is the container's first process after pid 1 and lives as long as the container,
 *       so no later process has a lower pid;
 *   <li>the idle shell forks its one {@code sleep} at start and never forks again. An idle loop
 *       that starts a new {@code sleep} whenever the last one ends would start whatever a step left
 *       at {@code sleep}'s path (steps often run as root) as soon as the step killed the running
 *       one, and the sweep would spare it as the idle shell's child. Killing this {@code sleep}
 *       ends the idle shell and with it the container: the step ends its own run;
 *   <li>a process whose parent pid is 0 was entered from outside the container's pid namespace: the
 *       runner's own execs. A step's process is a child of its exec, and once orphaned a child of
 *       pid 1, so none of them has parent 0.
 * </ul>
 *
 * <p>Stateless.
 */
public final class IdleShell {

  /**
   * What the container runs while no step does: it waits on one {@code sleep} of about 68 years,
   * reaps nothing else (pid 1 does) and holds no variable of the run's; a TERM ends it at once.
   */
  public static final String SCRIPT = "trap 'exit 0' TERM; sleep 2147483647 & wait $!";

  /**
   * Prints the idle shell's pid: the lowest but 1 and the exec's own, asked every 50 ms for up to 5
   * s while there is none yet (a container's init may not have started it when its start returns).
   * The retry's {@code sleep} has ended before each scan. Prints nothing if none appeared.
   */
  public static final String FIND =
      "i=0; while [ $i -lt 100 ]; do m=; for d in /proc/[0-9]*; do p=${d#/proc/};"
          + " if [ \"$p\" = 1 ] || [ \"$p\" = $$ ]; then continue; fi;"
          + " if [ -z \"$m\" ] || [ \"$p\" -lt \"$m\" ]; then m=$p; fi; done;"
          + " if [ -n \"$m\" ]; then echo \"$m\"; exit 0; fi; sleep 0.05; i=$((i + 1)); done";

  /**
   * Kills, with SIGKILL, every process but pid 1, the idle shell {@code $1}, its {@code sleep} (its
   * only child), the runner's own execs (parent 0) and itself, and prints how many it killed. Three
   * rounds, so a process forking as the first runs is caught by the next. Builtins only, so the
   * sweep starts no process of its own.
   */
  public static final String SWEEP =
      "idle=$1; n=0; for round in 1 2 3; do for d in /proc/[0-9]*; do p=${d#/proc/};"
          + " case $p in 1|$idle|$$) continue;; esac; pp=; while read -r k v; do"
          + " if [ \"$k\" = PPid: ]; then pp=$v; break; fi; done < $d/status 2>/dev/null;"
          + " case $pp in 0|$idle|'') continue;; esac; kill -9 $p 2>/dev/null && n=$((n+1)); done;"
          + " done; echo $n";

  private IdleShell() {}

  /** {@code sh -c} of {@link #SWEEP} for the idle shell {@code idlePid}; the name shows in ps. */
  public static java.util.List<String> sweepCommand(long idlePid) {
    if (idlePid <= 1) {
      throw new IllegalArgumentException("not an idle shell's pid: " + idlePid);
    }
    return java.util.List.of("sh", "-c", SWEEP, "knotless-leftovers", Long.toString(idlePid));
  }

  /**
   * The pid {@link #FIND} printed.
   *
   * @throws IllegalArgumentException when it printed none, or pid 1 or less
   */
  public static long parsePid(String printed) {
    String s = printed.strip();
    if (s.isEmpty() || s.length() > 10 || !s.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "no idle shell was found (the exec printed "
              + (s.isEmpty() ? "nothing" : "\"" + s + "\"")
              + ")");
    }
    long pid = Long.parseLong(s);
    if (pid <= 1) {
      throw new IllegalArgumentException("not an idle shell's pid: " + pid);
    }
    return pid;
  }
}
