package dev.knotless.runner.exec.pod;

import java.util.List;

/**
 * The execs that move trees in and out of a run's pod, beside {@link Launcher}'s, which run steps:
 * whether the checkout is in and whether steps began (what an adopter asks), the caches copied in
 * and out, and /work and the outputs packed as tar. Each script travels as the argument of {@code
 * sh -c}, with any path as an argument of its own, never part of the script. Stateless.
 */
final class CopyScripts {

  /**
   * Prints {@code yes} when the checkout was unpacked whole, or when a step has a directory (a pod
   * of a version that made no mark, whose steps began): either way no checkout is to be made.
   */
  static final String CHECKED =
      "if [ -e "
          + Launcher.CHECKED_OUT
          + " ] || [ -n \"$(ls -A "
          + Launcher.STEPS
          + " 2>/dev/null)\" ]; then echo yes; else echo no; fi";

  /**
   * Reads a byte count on one line, then replaces directory {@code $1} (a cache path) with exactly
   * that many bytes of tar: what the runner's base of that cache holds, over the image's own files.
   */
  static final String CACHE_IN =
      "read -r n && rm -rf \"$1\" && mkdir -p \"$1\" && head -c \"$n\" | tar -xf - -C \"$1\"";

  /**
   * Writes directory {@code $1} (a cache path) as tar to stdout; nothing, and success, when it is
   * not there or is a link, whose target is no cache's.
   */
  static final String CACHE_OUT =
      "if [ -d \"$1\" ] && [ ! -L \"$1\" ]; then cd \"$1\" && tar -cf - .; fi";

  /** Prints {@code yes} when a step has a directory (it was launched), else {@code no}. */
  static final String BEGUN =
      "if [ -n \"$(ls -A " + Launcher.STEPS + " 2>/dev/null)\" ]; then echo yes; else echo no; fi";

  /** Writes the whole of /work as tar to stdout, for a run that writes back. */
  static final String PACK_WORK = "cd " + Launcher.WORK + " && tar -cf - .";

  /**
   * Writes the outputs directory as tar to stdout; nothing, and success, when a step removed it or
   * put a link in its place, whose target is no run's output.
   */
  static final String PACK_OUTPUTS =
      "if [ -d "
          + Launcher.OUTPUTS
          + " ] && [ ! -L "
          + Launcher.OUTPUTS
          + " ]; then cd "
          + Launcher.OUTPUTS
          + " && tar -cf - .; fi";

  private CopyScripts() {}

  /** The exec that says whether the pod's checkout is in place ({@link #CHECKED}). */
  static List<String> checkedCommand() {
    return List.of("sh", "-c", CHECKED, "knotless-checked");
  }

  /** The exec that says whether a step was launched in the pod ({@link #BEGUN}). */
  static List<String> begunCommand() {
    return List.of("sh", "-c", BEGUN, "knotless-begun");
  }

  /** The exec that packs /work as tar on its stdout. */
  static List<String> packWorkCommand() {
    return List.of("sh", "-c", PACK_WORK, "knotless-pack-work");
  }

  /**
   * The exec that makes cache path {@code path} what its stdin, {@link Launcher#framed} tar, holds.
   * The path is an argument, never part of the script.
   */
  static List<String> cacheInCommand(String path) {
    return List.of("sh", "-c", CACHE_IN, "knotless-cache-in", path);
  }

  /** The exec that packs cache path {@code path} as tar on its stdout (nothing if it is none). */
  static List<String> cacheOutCommand(String path) {
    return List.of("sh", "-c", CACHE_OUT, "knotless-cache-out", path);
  }

  /** The exec that packs the outputs directory as tar on its stdout. */
  static List<String> packOutputsCommand() {
    return List.of("sh", "-c", PACK_OUTPUTS, "knotless-pack");
  }
}
