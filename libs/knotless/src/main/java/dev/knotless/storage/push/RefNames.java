package dev.knotless.storage.push;

/**
 * The checks git's {@code check-ref-format} makes on a full ref name, so a name git would refuse
 * never reaches a record. Pure and thread-safe.
 */
public final class RefNames {
  private RefNames() {}

  /**
   * Checks a full ref name such as {@code refs/heads/main}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static String validate(String ref) {
    if (ref == null || ref.isEmpty()) {
      throw new IllegalArgumentException("a ref name must not be empty");
    }
    if (!ref.startsWith("refs/")) {
      throw new IllegalArgumentException("not a full ref name (it must start with refs/): " + ref);
    }
    if (ref.endsWith("/") || ref.endsWith(".") || ref.endsWith(".lock")) {
      throw new IllegalArgumentException("invalid ref name (bad ending): " + ref);
    }
    if (ref.contains("..") || ref.contains("//") || ref.contains("@{") || ref.equals("@")) {
      throw new IllegalArgumentException("invalid ref name (holds .., // or @{): " + ref);
    }
    for (int i = 0; i < ref.length(); i++) {
      char c = ref.charAt(i);
      if (c < 0x20 || c == 0x7f || " ~^:?*[\\".indexOf(c) >= 0) {
        throw new IllegalArgumentException(
            "invalid ref name (holds a space, control character or one of ~^:?*[\\): " + ref);
      }
    }
    for (String part : ref.split("/")) {
      if (part.startsWith(".") || part.endsWith(".lock")) {
        throw new IllegalArgumentException(
            "invalid ref name (a component starts with . or ends with .lock): " + ref);
      }
    }
    return ref;
  }
}
