package dev.knotless.cli.checks;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

/** What {@code knotless checks} and {@code knotless check} print, as text. Pure and stateless. */
public final class CheckFormat {
  private CheckFormat() {}

  /**
   * The listing: one line per check, newest first as given, with the name {@code knotless check}
   * takes in the first column. {@code all} is every check the names must tell apart.
   */
  public static String list(List<CheckEntry> shown, List<CheckEntry> all, Instant now, Colors c) {
    Table t =
        new Table("CHECK", "STARTED", "DURATION", "WORKFLOW", "REF", "COMMIT", "STATUS", "NOTE");
    @SuppressWarnings("unchecked")
    UnaryOperator<String>[] style = new UnaryOperator[8];
    style[6] = c::status;
    for (CheckEntry e : shown) {
      t.add(
          new String[] {
            CheckSelection.shortId(e, all),
            Durations.when(e.when()),
            Durations.between(e.startedAt(), e.endedAt(), now),
            e.workflow(),
            e.ref(),
            shortSha(e.commit()),
            e.status(),
            firstLine(e.note())
          },
          style);
    }
    return t.render();
  }

  /** One check: where it is, what it checked, each step, its outputs and its log. */
  public static String detail(CheckEntry e, Instant now, Colors c) {
    JsonNode v = e.value();
    Table head = new Table("check", e.rkey());
    head.add("runner", e.runner());
    head.add("workflow", e.workflow());
    head.add("ref", e.ref());
    head.add("commit", e.commit());
    optional(head, "base", v, "baseCommit");
    optional(head, "pull", v, "pull");
    head.add(new String[] {"status", e.status()}, styled(null, c::status));
    head.add("created", Durations.when(e.createdAt()));
    head.add("started", Durations.when(e.startedAt()));
    head.add("ended", Durations.when(e.endedAt()));
    head.add("duration", Durations.between(e.startedAt(), e.endedAt(), now));
    if (e.note() != null && !e.note().isEmpty()) {
      head.add("note", e.note());
    }
    head.add(
        "log",
        e.logCid() == null
            ? (e.ended() ? "none" : "uploaded as the check ends")
            : e.logCid() + " (" + e.logSize() + " bytes)");
    StringBuilder b = new StringBuilder(head.render());
    b.append('\n').append(steps(e, now, c));
    JsonNode outputs = v.path("outputs");
    if (outputs.size() > 0) {
      b.append('\n').append(c.bold("outputs")).append('\n');
      for (JsonNode o : outputs) {
        b.append("  ").append(output(o)).append('\n');
      }
    }
    return b.toString();
  }

  /** The steps table, or a line saying there are none yet. */
  public static String steps(CheckEntry e, Instant now, Colors c) {
    List<CheckEntry.Step> steps = e.steps();
    if (steps.isEmpty()) {
      return "no steps " + (e.ended() ? "ran" : "reported yet") + "\n";
    }
    Table t = new Table("STEP", "STATUS", "DURATION", "NOTE");
    for (CheckEntry.Step s : steps) {
      t.add(
          new String[] {
            s.name(),
            s.status(),
            Durations.between(s.startedAt(), s.endedAt(), now),
            firstLine(s.note())
          },
          styled(null, c::status, null, null));
    }
    return t.render();
  }

  /** One step as {@code --watch} names it when it first appears or changes. */
  public static String stepLine(CheckEntry.Step s, Instant now, Colors c) {
    String d = Durations.between(s.startedAt(), s.endedAt(), now);
    String note = s.note() == null ? "" : "  " + firstLine(s.note());
    return "  step "
        + s.name()
        + ": "
        + c.status(s.status())
        + ("-".equals(d) ? "" : " " + d)
        + note;
  }

  /** An output: a text output's name and text, an image's name, blob and alt text. */
  static String output(JsonNode o) {
    String name = o.path("name").asText("?");
    if (o.has("text")) {
      return name + ": " + o.path("text").asText();
    }
    if (o.has("image")) {
      String cid = o.path("image").path("ref").path("$link").asText("?");
      String alt = o.path("alt").asText("");
      return name + ": image " + cid + (alt.isEmpty() ? "" : " (" + alt + ")");
    }
    return name + ": " + o.path("$type").asText("an output this version cannot show");
  }

  private static void optional(Table t, String label, JsonNode v, String field) {
    if (v.hasNonNull(field)) {
      t.add(label, v.path(field).asText());
    }
  }

  @SafeVarargs
  private static UnaryOperator<String>[] styled(UnaryOperator<String>... s) {
    return s;
  }

  static String shortSha(String sha) {
    return sha.length() > 12 ? sha.substring(0, 12) : sha;
  }

  static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl) + " …";
  }
}
