package dev.knotless.cli;

import dev.knotless.storage.cli.CliContext;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every {@code knotless} command shares: {@code --help}, and the invocation's context. */
@Command(mixinStandardHelpOptions = true, versionProvider = KnotlessCli.Version.class)
abstract class KnotlessCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  CliContext ctx() {
    return KnotlessCli.ctx(spec);
  }
}
