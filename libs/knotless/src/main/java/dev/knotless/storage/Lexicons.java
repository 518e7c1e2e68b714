package dev.knotless.storage;

/** The collections a knotless repository is stored in. Constants only; thread-safe. */
public final class Lexicons {
  /** The repo record, keyed by the repository's name. */
  public static final String REPO = "dev.knotless.repo";

  /** One record per live ref, keyed {@code <key>.<h(ref)>}. */
  public static final String REF = "dev.knotless.ref";

  /** One move of one ref, keyed {@code <key>.<h(ref)>.<generation>}. */
  public static final String CLAIM = "dev.knotless.claim";

  /** One git pack, keyed {@code <key>.<tid>}. */
  public static final String PACK = "dev.knotless.pack";

  /** Where a renamed repository went, keyed by the former name. */
  public static final String REDIRECT = "dev.knotless.redirect";

  private Lexicons() {}
}
