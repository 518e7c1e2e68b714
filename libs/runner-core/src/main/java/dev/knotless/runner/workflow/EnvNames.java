package dev.knotless.runner.workflow;

import java.util.regex.Pattern;

/**
 * Rules for the names of variables a step sees: {@code [A-Za-z_][A-Za-z0-9_]*}, and none starting
 * with {@code KNOTLESS_RUN_}, which the runner sets itself. Stateless and thread-safe.
 */
public final class EnvNames {

  /** The prefix of the runner's own variables. */
  public static final String RESERVED_PREFIX = "KNOTLESS_RUN_";

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private EnvNames() {}

  /** What is wrong with {@code name} as a variable name, or null if nothing is. */
  public static String problem(String name) {
    if (name == null || name.isEmpty()) {
      return "a variable name may not be empty";
    }
    if (!NAME.matcher(name).matches()) {
      return "\""
          + name.replace("\n", "\\n")
          + "\" is not a variable name: letters, digits and _, not starting with a digit";
    }
    if (name.startsWith(RESERVED_PREFIX)) {
      return name + " is reserved: the runner sets the " + RESERVED_PREFIX + "* variables itself";
    }
    return null;
  }
}
