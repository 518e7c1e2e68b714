package dev.knotless.cli;

import dev.knotless.atproto.Json;
import dev.knotless.cli.checks.CheckEntry;
import dev.knotless.cli.checks.CheckFormat;
import dev.knotless.cli.checks.CheckSource;
import dev.knotless.cli.checks.CheckWatch;
import dev.knotless.cli.checks.Colors;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code knotless check}: one check in full. */
@Command(
    name = "check",
    description = {
      "Show one check: its steps, note, outputs and runner.",
      "Each step with its status and duration.",
      "With --watch, wait until it ends, saying as its status moves and each step as the record"
          + " names it, then print its log and exit 0 if it passed, 1 if not. Only the log filed"
          + " as the check ends is shown: output as it is printed is not followed."
    })
final class CheckCli extends KnotlessCommand {
  @Mixin CheckArgs which;

  @Option(
      names = "--json",
      description = "print the check's uri, cid, runner, rkey and its record as read")
  boolean json;

  @Option(
      names = "--watch",
      description = "wait until the check ends, then print its log; exit 0 on success, 1 otherwise")
  boolean watch;

  @Mixin WatchOptions every;

  @Mixin ColorOption color;

  @Override
  public Integer call() throws Exception {
    which.validate();
    CheckSource source = new CheckSource(ctx().repos(), ctx().env());
    CheckEntry c = which.pick(source);
    Colors colors = color.colors(ctx().env());
    if (!watch) {
      print(c, colors);
      return 0;
    }
    CheckEntry ended = every.watch(source).until(c, ctx().out(), colors);
    ctx().out().println();
    print(ended, colors);
    if (ended.logCid() != null) {
      ctx().out().println();
      source.log(ended, ctx().out());
      ctx().out().flush();
    }
    return CheckWatch.exitCode(ended);
  }

  private void print(CheckEntry c, Colors colors) {
    if (json) {
      ctx().out().println(Json.text(c.toJson()));
    } else {
      ctx().out().print(CheckFormat.detail(c, Instant.now(), colors));
    }
  }
}
