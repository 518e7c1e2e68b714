package dev.knotless.runner.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;

/**
 * A step file: steps another repository shares, put in place of a {@code uses} step. It lists the
 * secrets its steps ask for and its steps, written as a workflow's are; its steps may not use other
 * step files. Immutable.
 *
 * <pre>
 * secrets: [NPM_TOKEN]
 * steps:
 *   - name: publish
 *     run: npm publish
 * </pre>
 *
 * @param secrets the secrets its steps ask for; a step gets only those of them the {@code uses}
 *     step passes
 * @param steps its steps, at least one
 */
public record StepFile(List<String> secrets, List<Step> steps) {

  static final Set<String> KEYS = Set.of("secrets", "steps");

  public StepFile {
    secrets = List.copyOf(secrets);
    steps = List.copyOf(steps);
  }

  /**
   * Parses a step file.
   *
   * @param source what to call it in a message: {@code <owner>/<repository>/<path>}
   * @throws IllegalArgumentException naming the file, the field and what is wrong
   */
  public static StepFile parse(String source, String path, byte[] content) {
    try {
      if (content.length > WorkflowParser.MAX_BYTES) {
        throw new Fields.Bad("", "is " + content.length + " bytes, over the 1 MiB allowed");
      }
      JsonNode root = WorkflowParser.read(path, content, source);
      if (root == null || !root.isObject()) {
        throw new Fields.Bad("", "must be a mapping with secrets and steps");
      }
      Fields.onlyKeys(root, "", KEYS);
      List<String> secrets = Fields.list(root, "secrets", "", WorkflowParser::envName, false);
      return new StepFile(secrets, WorkflowParser.steps(root, secrets, false));
    } catch (Fields.Bad b) {
      throw new IllegalArgumentException(
          "step file " + source + (b.field.isEmpty() ? "" : ": " + b.field) + " " + b.getMessage());
    } catch (WorkflowParser.Invalid i) {
      throw new IllegalArgumentException("step file " + source + " " + i.getMessage());
    }
  }
}
