package dev.knotless.cli;

import dev.knotless.cli.checks.Colors;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --color=auto|always|never}, for the commands that print statuses. */
final class ColorOption {
  @Option(
      names = "--color",
      paramLabel = "<when>",
      defaultValue = "auto",
      description =
          "colour statuses: auto (a terminal, unless NO_COLOR is set), always or never;"
              + " default ${DEFAULT-VALUE}")
  Colors.Mode mode = Colors.Mode.auto;

  Colors colors(Map<String, String> env) {
    return Colors.decide(mode, env, System.console() != null);
  }
}
