package dev.knotless.cli.workflows;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.cli.checks.Table;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import java.util.List;
import java.util.Map;

/**
 * Which workflows of a commit may be asked for by name at a ref, as the runner decides it ({@link
 * Workflow#mayRunByName}), and the variables each takes. Pure and stateless.
 */
public final class Askable {
  private Askable() {}

  /** The workflows of {@code set} that may run by name at {@code ref}, in file order. */
  public static List<Workflow> at(WorkflowSet set, String ref) {
    return set.workflows().stream().filter(w -> w.mayRunByName(ref)).toList();
  }

  /** How it comes to run at the ref: on a push there, only when asked, or both. */
  static String how(Workflow w, String ref) {
    boolean push = w.runsOnPush(ref);
    boolean asked = w.asked() != null && w.asked().matchesRef(ref);
    String s = push && asked ? "push, asked" : push ? "push" : "asked only";
    return w.asked() != null && w.asked().writesBack() && asked ? s + ", writes back" : s;
  }

  /** The table {@code knotless workflows} prints, then each workflow that does not load. */
  public static String text(WorkflowSet set, String ref) {
    List<Workflow> ok = at(set, ref);
    StringBuilder b = new StringBuilder();
    if (ok.isEmpty()) {
      b.append("no workflow may be asked for at ").append(ref).append('\n');
    } else {
      Table t = new Table("WORKFLOW", "RUNS", "FILE", "VARIABLES");
      for (Workflow w : ok) {
        t.add(w.name(), how(w, ref), w.file(), variables(w.env()));
      }
      b.append(t.render());
    }
    for (WorkflowError e : set.errors()) {
      b.append("does not load: ").append(e.message()).append('\n');
    }
    return b.toString();
  }

  /** {@code --json}: each workflow that may be asked for, and each that does not load. */
  public static ObjectNode json(WorkflowSet set, String ref, String commit) {
    ObjectNode n = Json.object().put("ref", ref).put("commit", commit);
    for (Workflow w : at(set, ref)) {
      ObjectNode o = n.withArray("workflows").addObject();
      o.put("name", w.name()).put("file", w.file()).put("onPush", w.runsOnPush(ref));
      o.put("asked", w.asked() != null && w.asked().matchesRef(ref));
      o.put("writesBack", w.asked() != null && w.asked().writesBack());
      ObjectNode vars = o.putObject("variables");
      w.env().forEach(vars::put);
      w.secrets().forEach(o.putArray("secrets")::add);
    }
    n.withArray("workflows");
    for (WorkflowError e : set.errors()) {
      n.withArray("errors").add(e.message());
    }
    return n;
  }

  private static String variables(Map<String, String> env) {
    return String.join(
        " ", env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
  }
}
