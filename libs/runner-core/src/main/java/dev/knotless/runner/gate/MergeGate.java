package dev.knotless.runner.gate;

import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The merge gate's decision (runner.md, "The merge gate"): whether a pull may merge, given the
 * workflows that run on it and the checks the repository's runners filed at its head and its base
 * as it is now. Pure: the caller reads the workflows at the commit the runner checks and lists the
 * checks, from the accounts the repository's {@code runners} names only. Stateless and thread-safe.
 *
 * <p>For each workflow the newest check decides (by {@code createdAt}, then by the runner's DID, so
 * two readers agree). Then, in this order:
 *
 * <ol>
 *   <li>a status other than success, queued, running or cancelled fails the gate, and that wins;
 *   <li>a queued or running check means the checks are still running;
 *   <li>a missing or cancelled check means the pull is not checked yet (pending);
 *   <li>otherwise it passes, a success skipped by paths included.
 * </ol>
 */
public final class MergeGate {

  private MergeGate() {}

  /** What the gate says, of one workflow or of the whole pull. */
  public enum Verdict {
    /** Every workflow has a success check. */
    PASSED,
    /** A check ended other than success or cancelled. */
    FAILED,
    /** A check is queued or running, and none failed. */
    RUNNING,
    /** A check is missing or cancelled, and none failed or is running. */
    PENDING;

    /** As {@code knotless merge --check} prints it. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One check as read from a runner's account.
   *
   * @param runner the DID of the account that filed it
   * @param workflow the workflow it is of
   * @param status its status as written; one this version does not know fails the gate
   * @param createdAt its {@code createdAt} as written (RFC 3339), or empty
   * @param note its note, or empty
   */
  public record Seen(String runner, String workflow, String status, String createdAt, String note) {
    public Seen {
      status = status == null ? "" : status;
      createdAt = createdAt == null ? "" : createdAt;
      note = note == null ? "" : note;
    }
  }

  /**
   * One workflow's part in the decision.
   *
   * @param workflow its name
   * @param check the check that decides it, or null when there is none
   * @param verdict what that check says
   */
  public record Part(String workflow, Seen check, Verdict verdict) {
    /** The check's status, or {@code missing}. */
    public String status() {
      return check == null ? "missing" : check.status();
    }
  }

  /**
   * The decision.
   *
   * @param verdict the whole pull's
   * @param parts each workflow's, in the order the workflows were given
   */
  public record Decision(Verdict verdict, List<Part> parts) {
    public Decision {
      parts = List.copyOf(parts);
    }
  }

  /**
   * The workflows the gate waits for: those of {@code set} (read at the commit the runner checks)
   * that run on a pull into {@code baseRef} on at least one of {@code runners}, and every one that
   * fails to load, since the runner files those as errors. In file order, errors first.
   */
  public static List<String> workflows(
      WorkflowSet set, String baseRef, Collection<String> runners) {
    Set<String> out = new LinkedHashSet<>();
    for (WorkflowError e : set.errors()) {
      out.add(e.name());
    }
    for (Workflow w : set.workflows()) {
      if (w.runsOnPullInto(baseRef) && runners.stream().anyMatch(w::runsOnRunner)) {
        out.add(w.name());
      }
    }
    return List.copyOf(out);
  }

  /** Decides the gate for {@code workflows}; checks of other workflows are passed over. */
  public static Decision decide(List<String> workflows, Collection<Seen> checks) {
    List<Part> parts = new ArrayList<>();
    for (String w : workflows) {
      Seen newest =
          checks.stream()
              .filter(c -> c.workflow().equals(w))
              .max(
                  Comparator.comparing((Seen c) -> instant(c.createdAt()))
                      .thenComparing(Seen::runner))
              .orElse(null);
      parts.add(new Part(w, newest, of(newest)));
    }
    return new Decision(overall(parts), parts);
  }

  /** One check's verdict: null (missing) and cancelled are pending. */
  public static Verdict of(Seen check) {
    if (check == null) {
      return Verdict.PENDING;
    }
    return switch (check.status()) {
      case "success" -> Verdict.PASSED;
      case "queued", "running" -> Verdict.RUNNING;
      case "cancelled" -> Verdict.PENDING;
      default -> Verdict.FAILED;
    };
  }

  private static Verdict overall(List<Part> parts) {
    for (Verdict v : List.of(Verdict.FAILED, Verdict.RUNNING, Verdict.PENDING)) {
      if (parts.stream().anyMatch(p -> p.verdict() == v)) {
        return v;
      }
    }
    return Verdict.PASSED;
  }

  private static Instant instant(String s) {
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      // A check with no readable time is older than any that has one.
      return Instant.EPOCH;
    }
  }
}
