package dev.knotless.runner.workflow;

import dev.knotless.atproto.Printable;
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
    java.util.Set<String> all = new java.util.TreeSet<>(tooBig.keySet());
    all.addAll(files.keySet());
    for (String path : all) {
      String problem = isWorkflowPath(path) ? fileNameProblem(path) : null;
      if (problem != null) {
        // Filed under an escaped stand-in name, without the file being read or parsed.
        String name = Printable.escape(stem(path));
        name = name.length() > MAX_NAME_CHARS ? name.substring(0, MAX_NAME_CHARS - 1) + "…" : name;
        byName
            .computeIfAbsent(name, k -> new ArrayList<>())
            .add(new WorkflowError(name, List.of(Printable.escape(path)), "", problem));
      }
    }
    for (Map.Entry<String, Long> e : new TreeMap<>(tooBig).entrySet()) {
      if (!isWorkflowPath(e.getKey()) || fileNameProblem(e.getKey()) != null) {
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
      if (!isWorkflowPath(path) || fileNameProblem(path) != null) {
        continue;
      }
      Object parsed = PARSED.get(path, e.getValue(), WorkflowSet::parse);
      String name = parsed instanceof Workflow w ? w.name() : ((WorkflowError) parsed).name();
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

  /** Workflow files parsed lately, up to 4 MiB of them. */
  private static final ParsedFiles PARSED = new ParsedFiles(4 << 20);

  /** One file parsed: its workflow, or its error. */
  private static Object parse(String path, byte[] content) {
    try {
      return WorkflowParser.parse(path, content);
    } catch (WorkflowParser.Invalid invalid) {
      return new WorkflowError(invalid.name, List.of(path), invalid.field, invalid.getMessage());
    }
  }

  /** The most characters of a workflow file's name before its extension, as of a name. */
  static final int MAX_NAME_CHARS = WorkflowParser.MAX_NAME_CHARS;

  /**
   * Why a workflow file's name cannot be used, or null. Its stem is the workflow's name when the
   * file gives none, and reaches check keys, log lines and {@code KNOTLESS_RUN_WORKFLOW}: so no
   * control, format or line-separator character (a newline, an escape, a bidi override), and at
   * most {@value #MAX_NAME_CHARS} characters.
   */
  public static String fileNameProblem(String path) {
    String stem = stem(path);
    if (Printable.hasUnprintable(path)) {
      return "the file's name holds a control or invisible character; rename it";
    }
    if (stem.length() > MAX_NAME_CHARS) {
      return "the file's name is "
          + stem.length()
          + " characters before its extension, more than "
          + MAX_NAME_CHARS
          + "; rename it";
    }
    return null;
  }

  private static String stem(String path) {
    String file = path.substring(path.lastIndexOf('/') + 1);
    int dot = file.lastIndexOf('.');
    return dot > 0 ? file.substring(0, dot) : file;
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
