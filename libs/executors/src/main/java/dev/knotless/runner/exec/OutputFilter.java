package dev.knotless.runner.exec;

import dev.knotless.runner.mask.SecretMask;

/**
 * What a run's output must not show: the run's granted secrets, as a {@link SecretMask}. A step's
 * output is masked as a byte stream ({@link OutputPump} puts it through a {@link
 * dev.knotless.runner.mask.Masker}); the executor's own lines, and the names of output files, are
 * masked whole with {@link #mask(String)}. Immutable and thread-safe.
 */
public final class OutputFilter {

  private static final OutputFilter NONE = new OutputFilter(SecretMask.none());

  private final SecretMask mask;

  private OutputFilter(SecretMask mask) {
    this.mask = mask;
  }

  /** The filter that masks the run's granted secrets as {@code mask} says. */
  public static OutputFilter masking(SecretMask mask) {
    return mask.isEmpty() ? NONE : new OutputFilter(mask);
  }

  /** A filter that changes nothing, for a run that was granted no secrets. */
  public static OutputFilter none() {
    return NONE;
  }

  /** The mask itself, for a stream of output. */
  public SecretMask secretMask() {
    return mask;
  }

  /** Returns {@code text} with every secret value it holds replaced. */
  public String mask(String text) {
    return mask.isEmpty() ? text : mask.mask(text);
  }

  /**
   * Whether {@code bytes} (an output file's) hold a secret value in any form the mask catches; such
   * a file is not filed. False for a filter that knows no secrets.
   */
  public boolean holdsSecret(byte[] bytes) {
    return !mask.isEmpty() && mask.foundIn(bytes);
  }

  @Override
  public String toString() {
    return "OutputFilter[" + mask + "]";
  }
}
