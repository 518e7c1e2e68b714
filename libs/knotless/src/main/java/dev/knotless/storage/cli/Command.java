package dev.knotless.storage.cli;

import java.io.IOException;
import java.util.List;

/**
 * One {@code knotless} subcommand, such as {@code repo commit}. To add one, implement this and list
 * it in {@link KnotlessCli#COMMANDS}. Implementations are stateless.
 */
public interface Command {
  /** The words that name it, such as {@code List.of("repo", "commit")}. */
  List<String> words();

  /** One line of usage, shown by {@code knotless help} and on a usage error. */
  String usage();

  /**
   * Runs it with the arguments after its words.
   *
   * @return the exit code
   * @throws UsageException for arguments that do not parse (exit 2, usage shown)
   */
  int run(List<String> args, CliContext ctx) throws IOException;

  /** Arguments that do not parse; the message says which. */
  final class UsageException extends IllegalArgumentException {
    public UsageException(String message) {
      super(message);
    }
  }
}
