package dev.knotless.cli;

import dev.knotless.cli.checks.CheckSource;
import dev.knotless.cli.checks.CheckWatch;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;

/** How often {@code --watch} reads the check again. */
final class WatchOptions {
  @Option(
      names = "--interval",
      paramLabel = "<seconds>",
      defaultValue = "2",
      description = "with --watch, read the check again this often; default ${DEFAULT-VALUE}")
  double seconds;

  CheckWatch watch(CheckSource source) {
    if (!(seconds > 0)) {
      throw new dev.knotless.storage.cli.UsageException("--interval must be above 0");
    }
    return new CheckWatch(
        source::reread,
        d -> Thread.sleep(d.toMillis()),
        Duration.ofMillis((long) (seconds * 1000)),
        Clock.systemUTC());
  }
}
