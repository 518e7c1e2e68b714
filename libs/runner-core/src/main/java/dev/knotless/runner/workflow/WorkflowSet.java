package dev.knotless.runner.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The workflows of one commit: those that parsed and those that did not. Every name appears once,
 * in one list or the other, so each gets exactly one check. Immutable and thread-safe.
 *
 * @param workflows the workflows that parsed and have a name of their own, sorted by file
 * @param errors the files that did not parse, and the names two or more files share, sorted
 */
public record WorkflowSet(List<Workflow> workflows, List<WorkflowError> errors) {

  /** Where workflows live, relative to the repository root. */
  public static final String DIRECTORY = ".knotless/workflows/";

  /** Copies the lists. */
  public WorkflowSet {
    workflows = List.copyOf(workflows);
    errors = List.copyOf(errors);
  }

  /**
   * Parses the workflows among {@code files}. Pure: the caller reads the files at the commit.
   *
   * @param files file contents by path relative to the repository root, such as {@code
   *     .knotless/workflows/ci.yml}; only files directly in {@code .knotless/workflows/} ending in
   *     {@code .yml}, {@code .yaml} or {@code .json} are workflows, and others are passed over
   */
  public static WorkflowSet load(Map<String, byte[]> files) {
    return load(files, Map.of());
  }

  /** The most a workflow file may hold; a bigger one is an error, and is never read. */
  public static final long MAX_FILE_BYTES = 1 << 20;

  /**
   * As {@link #load(Map)}, with the workflow files left unread for being over {@link
   * #MAX_FILE_BYTES}, by path to their size: each is an error under its file's name.
   */
  public static WorkflowSet load(Map<String, byte[]> files, Map<String, Long> tooBig) {
    Map<String, List<Object>> byName = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : new TreeMap<>(tooBig).entrySet()) {
      if (!isWorkflowPath(e.getKey())) {
        continue;
      }
      String file = e.getKey().substring(e.getKey().lastIndexOf('/') + 1);
      String name = file.substring(0, file.lastIndexOf('.'));
      byName
          .computeIfAbsent(name, k -> new ArrayList<>())
          .add(
              new WorkflowError(
                  name,
                  List.of(e.getKey()),
                  "",
                  "is "
                      + e.getValue()
                      + " bytes, over the "
                      + (MAX_FILE_BYTES >> 20)
                      + " MiB a workflow file may hold, so it was not read"));
    }
    for (Map.Entry<String, byte[]> e : new TreeMap<>(files).entrySet()) {
      String path = e.getKey();
      if (!isWorkflowPath(path)) {
        continue;
      }
      Object parsed;
      String name;
      try {
        Workflow w = WorkflowParser.parse(path, e.getValue());
        parsed = w;
        name = w.name();
      } catch (WorkflowParser.Invalid invalid) {
        parsed =
            new WorkflowError(invalid.name, List.of(path), invalid.field, invalid.getMessage());
        name = invalid.name;
      }
      byName.computeIfAbsent(name, k -> new ArrayList<>()).add(parsed);
    }
    List<Workflow> workflows = new ArrayList<>();
    List<WorkflowError> errors = new ArrayList<>();
    for (Map.Entry<String, List<Object>> e : byName.entrySet()) {
      List<Object> same = e.getValue();
      if (same.size() > 1) {
        List<String> paths = new ArrayList<>();
        for (Object o : same) {
          paths.addAll(o instanceof Workflow w ? List.of(w.file()) : ((WorkflowError) o).files());
        }
        errors.add(
            new WorkflowError(
                e.getKey(),
                paths.stream().sorted().toList(),
                "name",
                "these files share the workflow name \"" + e.getKey() + "\"; give each its own"));
      } else if (same.get(0) instanceof Workflow w) {
        workflows.add(w);
      } else {
        errors.add((WorkflowError) same.get(0));
      }
    }
    return new WorkflowSet(workflows, errors);
  }

  /** True if {@code path} names a workflow file. */
  public static boolean isWorkflowPath(String path) {
    if (!path.startsWith(DIRECTORY)) {
      return false;
    }
    String rest = path.substring(DIRECTORY.length());
    return !rest.contains("/")
        && !rest.startsWith(".")
        && (rest.endsWith(".yml") || rest.endsWith(".yaml") || rest.endsWith(".json"));
  }

  /** The workflow that parsed under this name. */
  public Optional<Workflow> workflow(String name) {
    return workflows.stream().filter(w -> w.name().equals(name)).findFirst();
  }

  /** The error filed under this name. */
  public Optional<WorkflowError> error(String name) {
    return errors.stream().filter(e -> e.name().equals(name)).findFirst();
  }

  /** The workflows a push to the full ref name runs, before paths are looked at. */
  public List<Workflow> onPush(String ref) {
    return workflows.stream().filter(w -> w.runsOnPush(ref)).toList();
  }

  /** The workflows a pull into the full base ref name runs, before paths are looked at. */
  public List<Workflow> onPullInto(String baseRef) {
    return workflows.stream().filter(w -> w.runsOnPullInto(baseRef)).toList();
  }

  /** Every name, parsed or not: each gets one check. */
  public List<String> names() {
    List<String> names = new ArrayList<>();
    workflows.forEach(w -> names.add(w.name()));
    errors.forEach(e -> names.add(e.name()));
    return names;
  }
}
