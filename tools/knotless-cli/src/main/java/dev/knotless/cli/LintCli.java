package dev.knotless.cli;

import dev.knotless.cli.lint.Lint;
import dev.knotless.runner.workflow.WorkflowSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code knotless lint}: workflow files checked as the runner checks them. */
@Command(
    name = "lint",
    description = {
      "Check workflow files with the runner's own parser and rules.",
      "Each fault is printed as <file>:<line>: <field>: <problem>, in the words of the error"
          + " check the runner would file. A directory is read as the runner reads"
          + " .knotless/workflows/: its .yml, .yaml and .json files, together, so two files giving"
          + " one name is a fault. Exits 1 if any file has a fault."
    })
final class LintCli extends KnotlessCommand {
  @Parameters(
      paramLabel = "<path>",
      arity = "0..*",
      description = "workflow files or directories; default .knotless/workflows")
  List<Path> paths = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    List<Path> given = paths.isEmpty() ? List.of(Path.of(WorkflowSet.DIRECTORY)) : paths;
    // Files are checked a directory at a time, since a name two files share is a fault.
    Map<Path, Map<String, Lint.Named>> byDir = new TreeMap<>();
    int files = 0;
    List<Lint.Problem> problems = new ArrayList<>();
    for (Path p : given) {
      if (Files.isDirectory(p)) {
        try (Stream<Path> s = Files.list(p)) {
          for (Path f : s.sorted().toList()) {
            if (Files.isRegularFile(f)
                && WorkflowSet.isWorkflowPath(WorkflowSet.DIRECTORY + f.getFileName())) {
              add(byDir, f);
              files++;
            }
          }
        }
      } else if (Files.isRegularFile(p)) {
        files++;
        if (WorkflowSet.isWorkflowPath(WorkflowSet.DIRECTORY + p.getFileName())) {
          add(byDir, p);
        } else {
          problems.add(
              new Lint.Problem(
                  p.toString(),
                  1,
                  "",
                  "is not a workflow file: the runner reads .yml, .yaml and .json"));
        }
      } else {
        throw new NoSuchFileException(p.toString(), null, "no such file or directory");
      }
    }
    for (Map<String, Lint.Named> dir : byDir.values()) {
      problems.addAll(Lint.directory(dir));
    }
    problems.forEach(ctx().out()::println);
    if (files == 0) {
      ctx().err().println("knotless: no workflow files in " + given.get(0));
      return 0;
    }
    ctx()
        .err()
        .println(
            files
                + (files == 1 ? " file, " : " files, ")
                + (problems.isEmpty()
                    ? "no faults"
                    : problems.size() + (problems.size() == 1 ? " fault" : " faults")));
    return problems.isEmpty() ? 0 : 1;
  }

  private static void add(Map<Path, Map<String, Lint.Named>> byDir, Path f) throws IOException {
    Path dir = f.toAbsolutePath().normalize().getParent();
    long size = Files.size(f);
    byte[] content = size > WorkflowSet.MAX_FILE_BYTES ? null : Files.readAllBytes(f);
    byDir
        .computeIfAbsent(dir, d -> new TreeMap<>())
        .put(f.getFileName().toString(), new Lint.Named(f.toString(), content, size));
  }
}
