package dev.knotless.cli;

import dev.knotless.cli.checks.CheckEntry;
import dev.knotless.cli.checks.CheckSource;
import dev.knotless.cli.checks.CheckWatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code knotless log}: a check's log, byte for byte. */
@Command(
    name = "log",
    description = {
      "Print a check's log byte for byte, as the runner filed it.",
      "With --watch, wait until the check ends, saying on standard error as its status moves and"
          + " each step as the record names it, then print the log and exit 0 if the check passed,"
          + " 1 if not. The log is uploaded as a check ends, so only then is there one to print."
    })
final class LogCli extends KnotlessCommand {
  @Mixin CheckArgs which;

  @Option(
      names = "--watch",
      description = "wait until the check ends; exit 0 on success, 1 otherwise")
  boolean watch;

  @Mixin WatchOptions every;

  @Mixin ColorOption color;

  @Override
  public Integer call() throws Exception {
    which.validate();
    CheckSource source = new CheckSource(ctx().repos(), ctx().env());
    CheckEntry c = which.pick(source);
    if (watch) {
      // Colour only when standard error is a terminal too; System.console() says for both ends.
      c = every.watch(source).until(c, ctx().err(), color.colors(ctx().env()));
    }
    source.log(c, ctx().out());
    ctx().out().flush();
    return watch ? CheckWatch.exitCode(c) : 0;
  }
}
