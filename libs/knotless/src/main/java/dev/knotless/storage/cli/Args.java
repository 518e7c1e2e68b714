package dev.knotless.storage.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parsed {@code --option value}, {@code --flag} and positional arguments. Unknown options are a
 * {@link Command.UsageException}. Immutable after parsing.
 */
public final class Args {
  private final Map<String, List<String>> options = new LinkedHashMap<>();
  private final List<String> positional = new ArrayList<>();

  /**
   * @param valued options that take a value (may repeat)
   * @param flags options that take none
   */
  public static Args parse(List<String> args, Set<String> valued, Set<String> flags) {
    Args a = new Args();
    for (int i = 0; i < args.size(); i++) {
      String s = args.get(i);
      if (s.startsWith("-") && s.length() > 1) {
        if (flags.contains(s)) {
          a.options.computeIfAbsent(s, k -> new ArrayList<>()).add("");
        } else if (valued.contains(s)) {
          if (i + 1 >= args.size()) {
            throw new Command.UsageException(s + " needs a value");
          }
          a.options.computeIfAbsent(s, k -> new ArrayList<>()).add(args.get(++i));
        } else {
          throw new Command.UsageException("unknown option " + s);
        }
      } else {
        a.positional.add(s);
      }
    }
    return a;
  }

  public boolean flag(String name) {
    return options.containsKey(name);
  }

  public String value(String name) {
    List<String> v = options.get(name);
    return v == null ? null : v.get(v.size() - 1);
  }

  public List<String> values(String name) {
    return options.getOrDefault(name, List.of());
  }

  public List<String> positional() {
    return positional;
  }

  /** The single positional argument, or a usage error naming {@code what}. */
  public String one(String what) {
    if (positional.size() != 1) {
      throw new Command.UsageException("expected one " + what + ", got " + positional.size());
    }
    return positional.get(0);
  }
}
