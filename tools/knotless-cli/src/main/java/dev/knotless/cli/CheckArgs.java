package dev.knotless.cli;

import dev.knotless.cli.checks.CheckEntry;
import dev.knotless.cli.checks.CheckSelection;
import dev.knotless.cli.checks.CheckSource;
import dev.knotless.storage.cli.UsageException;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** How {@code check} and {@code log} name one check: a name, or the newest of a ref or workflow. */
final class CheckArgs {
  @Parameters(index = "0", paramLabel = "<repo>", description = "<handle or did>/<name>")
  String repo;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "<check>",
      description = {
        "the check's record key, the start of it after the repository's part, or the start of",
        "its commit (4 characters or more), optionally with .<workflow>; as the CHECK column of",
        "knotless checks shows it"
      })
  String name;

  @Option(
      names = "--ref",
      paramLabel = "<ref>",
      description = "without <check>: the newest check of this ref (a branch or a full ref)")
  String ref;

  @Option(
      names = "--workflow",
      paramLabel = "<name>",
      description = "without <check>: the newest check of this workflow")
  String workflow;

  /**
   * Checks the arguments name a check one way, before anything is read.
   *
   * @throws UsageException when they name none, or both ways
   */
  void validate() {
    if (name == null && ref == null && workflow == null) {
      throw new UsageException("name a check, or give --ref or --workflow for the newest");
    }
    if (name != null && (ref != null || workflow != null)) {
      throw new UsageException("name a check, or give --ref or --workflow, not both");
    }
  }

  /**
   * The one check named.
   *
   * @throws IOException when the name picks none or several, saying which
   */
  CheckEntry pick(CheckSource source) throws IOException {
    String full = ChecksCli.fullRef(ref);
    CheckSource.Repo r = source.repo(repo);
    if (r.runners().isEmpty()) {
      throw new IOException(r.address().url() + " names no runners, so it has no checks to show");
    }
    List<CheckEntry> all = source.checks(r, full);
    if (all.isEmpty()) {
      throw new IOException(
          "no checks of " + r.address().url() + (full == null ? "" : " at " + full) + " yet");
    }
    CheckSelection.Picked p =
        name != null ? CheckSelection.pick(all, name) : CheckSelection.newest(all, full, workflow);
    if (p instanceof CheckSelection.One one) {
      return one.check();
    }
    if (p instanceof CheckSelection.Several several) {
      throw new IOException(
          several.name()
              + " matches "
              + several.matches().size()
              + " checks; name one of them:\n"
              + several.matches().stream()
                  .map(
                      c ->
                          "  "
                              + CheckSelection.shortId(c, all)
                              + "  "
                              + c.workflow()
                              + "  "
                              + c.ref()
                              + "  "
                              + c.status()
                              + "  "
                              + c.runner())
                  .collect(Collectors.joining("\n")));
    }
    throw new IOException(
        "no check of " + r.address().url() + " matches " + ((CheckSelection.NoneMatch) p).name());
  }
}
