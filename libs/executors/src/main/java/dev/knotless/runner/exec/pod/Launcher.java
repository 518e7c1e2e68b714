package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.IdleShell;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * The in-pod launcher: the few {@code sh} scripts the pod executor runs through the API server's
 * exec subresource, and the bytes it writes to their stdin. Nothing of the runner's is installed in
 * the run's image: each script travels as the argument of {@code sh -c}, so any image with a POSIX
 * shell, {@code setsid}, {@code head}, {@code tail}, {@code cat} and {@code tar} (busybox has them
 * all) can run steps. docs/executor.md, "The in-pod launcher", describes the protocol.
 *
 * <p>Step {@code n} keeps its state in {@code /knotless/steps/<n>/}: {@code out} (its stdout and
 * stderr, appended), {@code pgid} (its process group) and {@code exit} (its exit status, written
 * once it ended, renamed into place so it is never read half-written). The exec that launches a
 * step then follows it, printing {@code out}; the step and the subshell that waits for it hold none
 * of the exec's streams, so a connection that drops cannot kill either with SIGPIPE, and the step's
 * result is read from {@code exit}, never from how a connection ended.
 *
 * <p>Secrets: a step's environment is written to the launching exec's stdin as {@code sh} code
 * (single-quoted {@code export} lines), evaluated in the subshell that becomes the step, and
 * nowhere else: not in the pod spec, an argument, pid 1's environment or a file. Stateless.
 */
public final class Launcher {

  /** Where the checkout is unpacked and steps start. */
  public static final String WORK = "/work";

  /** The launcher's own directory: step records and outputs. */
  public static final String ROOT = "/knotless";

  /** Where outputs are left; {@code KNOTLESS_RUN_OUTPUTS} names it. */
  public static final String OUTPUTS = ROOT + "/outputs";

  /** Where each step's records lie, one directory per step index. */
  public static final String STEPS = ROOT + "/steps";

  /** The launcher's own variables start so; no run variable may, or it could change them. */
  static final String LAUNCHER_PREFIX = "knotless_";

  /** The variable the step's script is passed in. */
  static final String SCRIPT_VARIABLE = LAUNCHER_PREFIX + "script";

  /** The exit status the launcher gives a step it could not start (no directory, no checkout). */
  public static final int LAUNCH_FAILED = 125;

  /**
   * What the pod's container runs ({@link IdleShell#SCRIPT}): nothing but waiting, so the container
   * lives until the pod is deleted. It holds no variable of the run's; a TERM ends it at once.
   */
  public static final String IDLE = IdleShell.SCRIPT;

  /**
   * Starts step {@code $1} and follows it: reads a byte count on one line, then exactly that many
   * bytes of {@code sh} code (the environment and the script), launches the step as {@link
   * LaunchBody} does, and then prints its output as {@link #FOLLOW} does, from byte 0. A step that
   * has a directory already (it was launched before) is only followed, never started again. The
   * step and what waits for it write nothing to this exec, so a connection that drops ends only the
   * printing, which a follower takes up at the byte the runner read to.
   */
  static final String LAUNCH =
      String.join(
          "\n",
          "knotless_d=" + STEPS + "/$1",
          "read -r knotless_n || exit " + LAUNCH_FAILED,
          "knotless_code=$(head -c \"$knotless_n\")",
          LaunchBody.TEXT,
          "d=$knotless_d",
          "off=0",
          FollowBody.TEXT);

  /**
   * {@link #LAUNCH} from the step's code read on: start the step once, unless it has a directory,
   * in a subshell of its own that leaves this exec's streams, becomes the step's waiter and records
   * its exit; the launching shell drops the code and goes on.
   */
  private static final class LaunchBody {
    static final String TEXT =
        String.join(
            "\n",
            // A step launched before (by a scheduler that since stopped) is followed, never rerun.
            "if [ ! -e \"$knotless_d\" ]; then",
            "  { [ -d "
                + STEPS
                + " ] || mkdir -p "
                + STEPS
                + "; } && mkdir \"$knotless_d\" || exit "
                + LAUNCH_FAILED,
            "  (",
            // The waiter's own notices (a shell's "Killed") are not the step's output, and it
            // holds none of this exec's streams: a connection that drops cannot end it.
            "  exec </dev/null >/dev/null 2>&1",
            // An image need not have nice (a minimal busybox lacks it): the pod's lower CPU request
            // is the weight that counts, nice only adds to it where there is one.
            "  if [ \"$2\" -gt 0 ] && command -v nice >/dev/null 2>&1; then",
            "    knotless_nice=\"nice -n $2\"",
            "  else",
            "    knotless_nice=",
            "  fi",
            "  if cd " + WORK + "; then",
            "    (eval \"$knotless_code\" && exec setsid $knotless_nice sh -ec \"$"
                + SCRIPT_VARIABLE
                + "\") >>\"$knotless_d/out\" 2>&1 &",
            "    knotless_pid=$!",
            "    knotless_code=",
            "    echo \"$knotless_pid\" >\"$knotless_d/pgid.new\" && mv \"$knotless_d/pgid.new\" \"$knotless_d/pgid\"",
            "    wait \"$knotless_pid\"",
            "    knotless_status=$?",
            "  else",
            "    knotless_status=" + LAUNCH_FAILED,
            "  fi",
            "  echo \"$knotless_status\" >\"$knotless_d/exit.new\" && mv \"$knotless_d/exit.new\" \"$knotless_d/exit\"",
            "  ) &",
            "fi",
            "knotless_code=");
  }

  /**
   * The exit status of a follower that printed its step's output to the end after the exit record
   * appeared, and found a record other than {@code 0}: the runner reads the record ({@link
   * #exitCommand}). Neither a signal (128 and up) nor the shell's own errors give it.
   */
  static final int FOLLOWED_NOT_ZERO = 10;

  /**
   * Prints step {@code $1}'s output from byte offset {@code $2} on, as it grows, until the step's
   * exit record exists and everything written before it was printed; then, and only then, it exits
   * 0 if the record is {@code 0} (a pass, which the runner then need not read) and {@link
   * #FOLLOWED_NOT_ZERO} if it is anything else. Any other end (a connection dropped, a kill) leaves
   * the rest to {@link #tailCommand}.
   */
  static final String FOLLOW = String.join("\n", "d=" + STEPS + "/$1", "off=$2", FollowBody.TEXT);

  /**
   * {@link #FOLLOW} from its step's directory {@code d} and offset {@code off} on. It opens the
   * output once it exists and keeps it open, so each look is one {@code cat} from where the last
   * ended (after a {@code tail} past the offset, the first time); what the step wrote before its
   * record is printed by the look that follows the record's sight, so a step that ended before its
   * follower began is printed whole by that one follower. It looks every 10 ms for its first 200 ms
   * (a step that speaks or ends at once is heard sooner), then every 50 ms.
   */
  private static final class FollowBody {
    static final String TEXT =
        String.join(
            "\n",
            "i=0",
            "opened=",
            "while :; do",
            "  ended=",
            "  [ -f \"$d/exit\" ] && ended=1",
            "  if [ -n \"$opened\" ]; then",
            "    cat <&3",
            "  elif [ -e \"$d/out\" ]; then",
            "    exec 3<\"$d/out\" || exit 1",
            "    opened=1",
            "    if [ \"$off\" -gt 0 ]; then tail -c +$((off + 1)) <&3; else cat <&3; fi",
            "  fi",
            "  if [ -n \"$ended\" ]; then",
            "    read -r status <\"$d/exit\"",
            "    [ \"$status\" = 0 ] && exit 0",
            "    exit " + FOLLOWED_NOT_ZERO,
            "  fi",
            "  if [ $i -lt 20 ]; then",
            "    i=$((i + 1))",
            "    sleep 0.01",
            "  else",
            "    sleep 0.05",
            "  fi",
            "done");
  }

  /** Prints step {@code $1}'s output from byte offset {@code $2} to its end. */
  static final String TAIL = "tail -c +$(($2 + 1)) \"" + STEPS + "/$1/out\" 2>/dev/null; exit 0";

  /** Prints step {@code $1}'s exit record, or nothing while it has none. */
  static final String EXIT = "cat \"" + STEPS + "/$1/exit\" 2>/dev/null; exit 0";

  /**
   * Kills step {@code $1}'s whole process group with SIGKILL, waiting up to 5 s for the launcher to
   * record the group when the kill comes as the step starts.
   */
  static final String KILL =
      String.join(
          "\n",
          "d=" + STEPS + "/$1",
          "i=0",
          "while [ ! -s \"$d/pgid\" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done",
          "[ -s \"$d/pgid\" ] && kill -9 -\"$(cat \"$d/pgid\")\"",
          "exit 0");

  /** Made once the checkout is wholly unpacked, before any step: what an adopter looks for. */
  static final String CHECKED_OUT = ROOT + "/checked-out";

  /**
   * Reads a byte count on one line, then unpacks exactly that many bytes of tar into /work, emptied
   * first when it holds anything (an adopter unpacks again what a stopped runner left half done;
   * the emptiness is seen by the shell's own globbing, so a new pod's unpack runs no {@code rm}),
   * and marks it done.
   */
  static final String UNPACK =
      String.join(
          "\n",
          "knotless_full=",
          "for knotless_f in " + WORK + "/* " + WORK + "/.[!.]* " + WORK + "/..?*; do",
          "  if [ -e \"$knotless_f\" ] || [ -L \"$knotless_f\" ]; then knotless_full=1; fi",
          "done",
          "read -r n && mkdir -p "
              + WORK
              + " "
              + OUTPUTS
              + " "
              + STEPS
              + " && { [ -z \"$knotless_full\" ] || rm -rf "
              + WORK
              + "/* "
              + WORK
              + "/.[!.]* "
              + WORK
              + "/..?*; } && head -c \"$n\" | tar -xf - -C "
              + WORK
              + " && : > "
              + CHECKED_OUT);

  /** What {@link #UNPACK_AND_LAUNCH} prints once the checkout is in, before the step starts. */
  static final String UNPACKED = "knotless: unpacked";

  /**
   * {@link #UNPACK} and then {@link #LAUNCH} in one exec, for the first step of a pod just made:
   * first a byte count and that much tar; once the checkout is in it prints {@link #UNPACKED} on a
   * line of its own and reads the step's code, {@link #framed}, which the runner sends only then;
   * from there on it is {@link #LAUNCH}. The tar comes first because {@code head} may read ahead of
   * the bytes it was asked for, and nothing may follow what it reads until it is done; the code
   * read a line at a time by the shell instead costs a system call a byte, about 0.1 ms each under
   * gVisor. When the checkout could not be unpacked it prints why and exits {@link #LAUNCH_FAILED},
   * launching nothing.
   */
  static final String UNPACK_AND_LAUNCH =
      String.join(
          "\n",
          "if ! { " + UNPACK + "; } 2>&1; then",
          "  echo 'the checkout was not unpacked'",
          "  exit " + LAUNCH_FAILED,
          "fi",
          "echo '" + UNPACKED + "'",
          LAUNCH);

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private Launcher() {}

  /**
   * The exec that starts step {@code index}, under {@code nice -n <niceness>} when above 0 and the
   * image has {@code nice}, and then prints its output as a follower from byte 0 does, ending as
   * one does; its stdin must be {@link #stdin}.
   */
  public static List<String> launchCommand(int index, int niceness) {
    return List.of(
        "sh", "-c", LAUNCH, "knotless-launch", Integer.toString(index), Integer.toString(niceness));
  }

  /**
   * The exec that unpacks the checkout and then starts and follows step {@code index}, as {@link
   * #launchCommand}; its stdin must be the {@link #framed} tar, then, once it said {@link
   * #UNPACKED}, {@link #stdin}.
   */
  public static List<String> unpackAndLaunchCommand(int index, int niceness) {
    return List.of(
        "sh",
        "-c",
        UNPACK_AND_LAUNCH,
        "knotless-unpack-launch",
        Integer.toString(index),
        Integer.toString(niceness));
  }

  /** The exec that follows step {@code index}'s output from byte {@code offset} on. */
  public static List<String> followCommand(int index, long offset) {
    return List.of("sh", "-c", FOLLOW, "knotless-follow", Integer.toString(index), off(offset));
  }

  /** The exec that prints step {@code index}'s output from byte {@code offset} to its end. */
  public static List<String> tailCommand(int index, long offset) {
    return List.of("sh", "-c", TAIL, "knotless-tail", Integer.toString(index), off(offset));
  }

  /** The exec that prints step {@code index}'s exit record, empty while it has none. */
  public static List<String> exitCommand(int index) {
    return List.of("sh", "-c", EXIT, "knotless-exit", Integer.toString(index));
  }

  /** The exec that kills step {@code index}'s process group. */
  public static List<String> killCommand(int index) {
    return List.of("sh", "-c", KILL, "knotless-kill", Integer.toString(index));
  }

  /** The exec that prints the idle shell's pid ({@link IdleShell#FIND}). */
  public static List<String> idlePidCommand() {
    return List.of("sh", "-c", IdleShell.FIND, "knotless-idle");
  }

  /**
   * The exec that kills what steps left running, sparing the pod's own processes around idle shell
   * {@code idlePid} ({@link IdleShell#SWEEP}), and prints how many it killed.
   */
  public static List<String> endLeftoversCommand(long idlePid) {
    return IdleShell.sweepCommand(idlePid);
  }

  /** The exec that unpacks the checkout; its stdin must be {@link #framed} tar. */
  public static List<String> unpackCommand() {
    return List.of("sh", "-c", UNPACK, "knotless-unpack");
  }

  private static String off(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("negative offset " + offset);
    }
    return Long.toString(offset);
  }

  /**
   * What the launching exec reads on its stdin: the step's environment as single-quoted {@code
   * export} lines and its script as one more variable, {@link #framed}.
   *
   * @throws IllegalArgumentException naming a variable whose name a shell cannot take (the value is
   *     never named, as it may be a secret)
   */
  public static byte[] stdin(Map<String, String> env, String script) {
    return framed(code(env, script).getBytes(StandardCharsets.UTF_8));
  }

  private static String code(Map<String, String> env, String script) {
    StringBuilder code = new StringBuilder();
    env.forEach(
        (name, value) -> {
          if (!NAME.matcher(name).matches() || name.startsWith(LAUNCHER_PREFIX)) {
            throw new IllegalArgumentException(
                "variable "
                    + name
                    + " cannot reach a step in a pod: not a shell variable's name, or one the launcher keeps");
          }
          code.append("export ").append(name).append('=').append(quote(value)).append('\n');
        });
    code.append(SCRIPT_VARIABLE).append('=').append(quote(script)).append('\n');
    return code.toString();
  }

  /**
   * {@code bytes} after a line holding their count, as {@link #LAUNCH} and {@link #UNPACK} read.
   */
  public static byte[] framed(byte[] bytes) {
    byte[] head = (bytes.length + "\n").getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[head.length + bytes.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(bytes, 0, all, head.length, bytes.length);
    return all;
  }

  /**
   * {@code value} single-quoted for {@code sh}: every byte as it is, quotes closed around {@code
   * '}.
   */
  static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }

  /** The status an exit record holds, or empty while the step has none (or it is not a number). */
  public static OptionalInt parseExit(String record) {
    String s = record.strip();
    if (s.isEmpty() || s.length() > 3 || !s.chars().allMatch(Character::isDigit)) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(Integer.parseInt(s));
  }
}
