package dev.knotless.storage;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Ends a short-lived command (the git helper, the owner tools, a compaction) as soon as its work is
 * done.
 *
 * <p>At exit the JVM waits up to 0.3 s for every other thread that is inside a native call to come
 * out of it. A {@link java.net.http.HttpClient} keeps a thread in one (its selector) for as long as
 * the client lives, so every command that made a request paid those 0.3 s after its last line: a
 * third of a small clone. The selector threads are told to stop first, and each stops at once.
 */
public final class ProcessExit {
  /** The JDK names the thread each client selects on {@code HttpClient-<n>-SelectorManager}. */
  private static final Pattern SELECTOR = Pattern.compile("HttpClient-\\d+-SelectorManager");

  private static final long WAIT_MILLIS = 100;

  private ProcessExit() {}

  /** Stops what would hold the exit up, then exits with {@code status}. Does not return. */
  public static void now(int status) {
    letClientsGo();
    if (Trace.on()) {
      List<String> inFlight =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t != Thread.currentThread() && t.getState() == Thread.State.RUNNABLE)
              .filter(
                  t -> t.getThreadGroup() != null && !"system".equals(t.getThreadGroup().getName()))
              .map(Thread::getName)
              .sorted()
              .toList();
      Trace.mark("exit" + (inFlight.isEmpty() ? "" : " (still running: " + inFlight + ")"));
    }
    System.exit(status);
  }

  /**
   * Interrupts every HTTP client's selector thread and waits a little for each to end. A client is
   * of no use after this: call it only on the way out.
   */
  static void letClientsGo() {
    stop(selectors());
  }

  /** The selector threads of the HTTP clients alive now. */
  static List<Thread> selectors() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> SELECTOR.matcher(t.getName()).matches())
        .toList();
  }

  /** Interrupts {@code threads}, and waits for them to end, {@value #WAIT_MILLIS} ms at most. */
  static void stop(List<Thread> threads) {
    threads.forEach(Thread::interrupt);
    long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
    for (Thread t : threads) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        return;
      }
      try {
        t.join(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
