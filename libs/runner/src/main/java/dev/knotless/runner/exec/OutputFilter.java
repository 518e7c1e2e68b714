package dev.knotless.runner.exec;

import dev.knotless.runner.mask.SecretMask;

/**
 * Masks one line of a run's output before it is written to the log or handed to a {@link
 * RunListener}. The wiring adapts the run's masker (secrets replaced by {@code ***}) to this.
 *
 * <p>The executor calls it with whole lines only, so a secret printed in pieces across several
 * writes is still seen whole: a line ends at a newline or a carriage return, and neither is in the
 * string passed. It is also called on the executor's own lines (step headers, notes), so everything
 * written goes through it. Implementations must be thread-safe: lines of one run come from more
 * than one thread, though never two at once.
 */
@FunctionalInterface
public interface OutputFilter {

  /** Returns {@code line} with every secret value it holds replaced. */
  String mask(String line);

  /**
   * Whether {@code bytes} (an output file's) hold a secret value in any form the mask catches; such
   * a file is not filed. False for a filter that knows no secrets.
   */
  default boolean holdsSecret(byte[] bytes) {
    return false;
  }

  /** The filter that masks the run's granted secrets as {@code mask} says. */
  static OutputFilter masking(SecretMask mask) {
    return new OutputFilter() {
      @Override
      public String mask(String line) {
        return mask.mask(line);
      }

      @Override
      public boolean holdsSecret(byte[] bytes) {
        return mask.foundIn(bytes);
      }
    };
  }

  /** A filter that changes nothing, for a run that was granted no secrets. */
  static OutputFilter none() {
    return line -> line;
  }
}
