package dev.knotless.cli.lint;

import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks workflow files with the runner's own parser and rules ({@link WorkflowSet#load}), as it
 * loads the files of one commit's {@code .knotless/workflows/}, and says where each fault is. Pure
 * and stateless.
 */
public final class Lint {
  private Lint() {}

  /**
   * One fault: the file, the line, and the runner's own words for it.
   *
   * @param file the file as the person named it
   * @param line the line, from 1
   * @param field where in the file, as the runner names it; empty for the whole file
   * @param problem what is wrong
   */
  public record Problem(String file, int line, String field, String problem) {
    /** {@code <file>:<line>: <field>: <problem>}, the runner's note with the line put in. */
    @Override
    public String toString() {
      return file + ":" + line + ": " + (field.isEmpty() ? "" : field + ": ") + problem;
    }
  }

  /**
   * The faults of the workflow files of one directory, as one commit's.
   *
   * @param files each file by its name within the directory (such as {@code ci.yml})
   */
  public static List<Problem> directory(Map<String, Named> files) {
    Map<String, byte[]> read = new LinkedHashMap<>();
    Map<String, Long> tooBig = new LinkedHashMap<>();
    Map<String, Named> byRepoPath = new LinkedHashMap<>();
    for (Map.Entry<String, Named> e : files.entrySet()) {
      String at = WorkflowSet.DIRECTORY + e.getKey();
      byRepoPath.put(at, e.getValue());
      if (e.getValue().content() == null) {
        tooBig.put(at, e.getValue().size());
      } else {
        read.put(at, e.getValue().content());
      }
    }
    List<Problem> out = new ArrayList<>();
    for (WorkflowError err : WorkflowSet.load(read, tooBig).errors()) {
      for (String at : err.files()) {
        Named n = byRepoPath.get(at);
        String shown = n == null ? at : n.shown();
        int line =
            n == null || n.content() == null
                ? 1
                : FieldLines.of(at, n.content()).line(err.field(), err.problem());
        out.add(new Problem(shown, line, err.field(), err.problem()));
      }
    }
    return out;
  }

  /** A file as the person named it, with its content (null when too big to read) and size. */
  public record Named(String shown, byte[] content, long size) {}
}
