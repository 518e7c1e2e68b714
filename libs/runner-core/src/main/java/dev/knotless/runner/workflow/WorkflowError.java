package dev.knotless.runner.workflow;

import java.util.List;

/**
 * A workflow that cannot run: a file that does not parse, or a name two files share. Its check is
 * filed as error, whether or not it would have run.
 *
 * @param name the name its check is filed under: its {@code name} if that could be read, else the
 *     file name without its extension
 * @param files the files at fault, sorted; two or more for a shared name
 * @param field where in the file the fault is, such as {@code steps[2].timeout}; steps are numbered
 *     from 1; empty for a fault of the whole file
 * @param problem what is wrong, never quoting more of the file than the field needs
 */
public record WorkflowError(String name, List<String> files, String field, String problem) {

  /** Copies the list. */
  public WorkflowError {
    files = List.copyOf(files);
  }

  /** The message for the check's note and the log: {@code <file>: <field>: <problem>}. */
  public String message() {
    String where = String.join(" and ", files);
    return field.isEmpty() ? where + ": " + problem : where + ": " + field + ": " + problem;
  }
}
