package dev.knotless.runner.exec;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * Kills a step's whole process group with SIGKILL through libc's {@code kill(2)}, called with JNA.
 * A kill command would not do: the runner's image has none, and spawning one could fail just when a
 * hung step must go. Thread-safe (it holds no state).
 */
final class ProcessGroups {

  private static final int SIGKILL = 9;
  private static final int ESRCH = 3;

  /** The one libc function the executor needs. */
  interface LibC extends Library {
    int kill(int pid, int signal) throws LastErrorException;
  }

  private static final LibC LIBC = Native.load(Platform.C_LIBRARY_NAME, LibC.class);

  private ProcessGroups() {}

  /**
   * Sends SIGKILL to every process in the group {@code pgid}. Returns false if the group has no
   * process left (ESRCH), which is what a step that already ended leaves.
   *
   * @throws IllegalStateException if the kernel refuses for another reason (EPERM, EINVAL)
   */
  static boolean kill(long pgid) {
    if (pgid <= 1 || pgid > Integer.MAX_VALUE) {
      // kill(-1) or kill(0) would reach far more than a step: never pass them on.
      throw new IllegalArgumentException("not a step's process group: " + pgid);
    }
    try {
      LIBC.kill(-(int) pgid, SIGKILL);
      return true;
    } catch (LastErrorException e) {
      if (e.getErrorCode() == ESRCH) {
        return false;
      }
      throw new IllegalStateException(
          "kill(-" + pgid + ", SIGKILL) failed with errno " + e.getErrorCode(), e);
    }
  }
}
