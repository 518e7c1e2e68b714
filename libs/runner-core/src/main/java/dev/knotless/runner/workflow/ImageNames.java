package dev.knotless.runner.workflow;

import dev.knotless.atproto.Printable;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Which image names a run may ask for: docker's reference grammar ({@code
 * [host[:port]/]path[:tag][@digest]}, as the distribution library reads it). A workflow's {@code
 * image} and {@code --image} are checked against it before the daemon is asked for anything, so a
 * name such as {@code $(id);x} is refused with a message that names it, quoted, and says why,
 * rather than failing somewhere inside the docker client. Pure and thread-safe.
 */
public final class ImageNames {

  /** The longest repository name (the part before the tag) docker takes. */
  public static final int MAX_NAME_CHARS = 255;

  private static final String ALNUM = "[a-z0-9]+";
  private static final String SEPARATOR = "(?:[._]|__|-+)";
  private static final String PATH_COMPONENT = ALNUM + "(?:" + SEPARATOR + ALNUM + ")*";
  private static final String DOMAIN_COMPONENT =
      "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
  private static final String HOST =
      "(?:" + DOMAIN_COMPONENT + "(?:\\." + DOMAIN_COMPONENT + ")*|\\[[a-fA-F0-9:]+\\])";
  private static final String DOMAIN = HOST + "(?::[0-9]+)?";
  private static final String NAME =
      "(?:" + DOMAIN + "/)?" + PATH_COMPONENT + "(?:/" + PATH_COMPONENT + ")*";
  private static final String TAG = "[\\w][\\w.-]{0,127}";
  private static final String DIGEST =
      "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
  private static final Pattern REFERENCE =
      Pattern.compile("(" + NAME + ")(?::" + TAG + ")?(?:@" + DIGEST + ")?");

  /** Every character some reference may hold; anything else is named in the refusal. */
  private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._:/@+\\-\\[\\]]");

  private ImageNames() {}

  /**
   * Why {@code image} is no image reference, in words that follow its quoted name (such as {@code
   * holds '$', '(', ')' and ';', which no image name may}), or empty when it is one.
   */
  public static Optional<String> problem(String image) {
    if (image == null || image.isEmpty()) {
      return Optional.of("is empty");
    }
    TreeSet<String> bad = new TreeSet<>();
    image
        .codePoints()
        .mapToObj(Character::toString)
        .filter(c -> !ALLOWED.matcher(c).matches())
        .forEach(c -> bad.add("'" + Printable.escape(c) + "'"));
    if (!bad.isEmpty()) {
      return Optional.of("holds " + list(bad) + ", which no image name may");
    }
    var m = REFERENCE.matcher(image);
    if (!m.matches()) {
      String path = image.contains("/") ? image.substring(image.indexOf('/') + 1) : image;
      if (!path.equals(path.toLowerCase(java.util.Locale.ROOT))) {
        return Optional.of(
            "has capitals in its repository path, which docker takes only in lower case");
      }
      return Optional.of("is not an image name of the form [host[:port]/]path[:tag][@digest]");
    }
    if (m.group(1).length() > MAX_NAME_CHARS) {
      return Optional.of("has a repository name over " + MAX_NAME_CHARS + " characters");
    }
    return Optional.empty();
  }

  /**
   * {@code image}, when it is an image reference.
   *
   * @throws IllegalArgumentException saying {@code image "<name>" <why>}, the name quoted with
   *     every character that could end or hide part of a line escaped
   */
  public static String check(String image) {
    Optional<String> why = problem(image);
    if (why.isPresent()) {
      throw new IllegalArgumentException("image " + Printable.quote(image) + " " + why.get());
    }
    return image;
  }

  private static String list(TreeSet<String> items) {
    if (items.size() == 1) {
      return items.first();
    }
    String last = items.pollLast();
    return String.join(", ", items) + " and " + last;
  }
}
