package dev.knotless.runner.pull;

import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.PullMark;
import dev.knotless.runner.state.RepoState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which open pulls of a repository run in this pass, from where each is now and where the state
 * file says it last ran or was passed over. Stateless and pure.
 *
 * <ul>
 *   <li>On a repository's first watch every open pull is the starting point: recorded where it is,
 *       none run.
 *   <li>A pull the owner asked for ({@code knotless rerun --pull}) runs where it is now, whoever's
 *       it is: once, since running it records it there and forgets the ask.
 *   <li>A pull that runs as it moves (trusted, or an agent's) runs when it is new to the runner,
 *       its head moved, or its base moved (unless {@code rerunOnBaseMove} is off, as under {@code
 *       --pulls-only}); at the head and base it last ran at, it does not run again.
 *   <li>Any other pull is passed over: recorded where it is, and left until the owner asks.
 *   <li>A pull the state remembers that is no longer open is forgotten, with any ask for it.
 *   <li>Runs a stop dropped run again where the pull still is, only those workflows; where only its
 *       base moved since, all its workflows run on the base as it is, whether or not a base that
 *       moved alone runs it otherwise.
 * </ul>
 */
public final class PullPlanner {

  private PullPlanner() {}

  /**
   * An open pull where it is now.
   *
   * @param uri the pull record's AT-URI
   * @param trust whose code it brings
   * @param head its head commit, read from the head repository's owner's PDS
   * @param base its base branch's tip, read from the base repository's owner's PDS
   */
  public record PullAt(String uri, PullTrust trust, String head, String base) {}

  /** Why a pull runs. */
  public enum Why {
    /** The runner has not run it before. */
    NEW,
    /** Its head moved. */
    MOVED,
    /** Its base moved, its head did not. */
    BASE_MOVED,
    /** The owner asked for it. */
    ASKED,
    /**
     * A stop dropped its runs before they ran, where it still is (only those run), or at its head
     * on a base that has moved since (all its workflows run).
     */
    DROPPED
  }

  /**
   * A pull due to run.
   *
   * @param pull where it is
   * @param why why it runs
   * @param only the workflows asked for by name; empty for all of them
   */
  public record Due(PullAt pull, Why why, Set<String> only) {
    public Due {
      only = Set.copyOf(only);
    }
  }

  /**
   * What the pass does with the pulls.
   *
   * @param due the pulls that run, in the order given
   * @param passedOver pulls recorded where they are without running: a first watch's, and pulls
   *     that wait for the owner to ask
   * @param closed pulls the state remembers that are no longer open
   * @param movedOn runs a stop dropped at a head or base an open pull has since left, as the
   *     planned state held them: they never run (the pull runs where it is now, as its move says).
   *     In the distributed shape their checks were left queued when they were handed back, so the
   *     caller ends them; {@link #settle} then forgets them
   * @param closedOn runs a stop dropped of pulls that are now closed (neither open nor held by the
   *     merge queue), as the planned state held them: they never run, the caller ends their checks,
   *     and {@link #settle} forgets them
   */
  public record Plan(
      List<Due> due,
      List<PullAt> passedOver,
      Set<String> closed,
      List<DroppedRun> movedOn,
      List<DroppedRun> closedOn) {
    public Plan {
      due = List.copyOf(due);
      passedOver = List.copyOf(passedOver);
      closed = Set.copyOf(closed);
      movedOn = List.copyOf(movedOn);
      closedOn = List.copyOf(closedOn);
    }
  }

  /**
   * Plans the pulls.
   *
   * @param open every open pull, where it is now
   * @param state what the runner remembers of the repository
   * @param firstWatch whether this is the repository's first pass
   * @param rerunOnBaseMove whether a base that moved alone runs a pull again
   */
  public static Plan plan(
      List<PullAt> open, RepoState state, boolean firstWatch, boolean rerunOnBaseMove) {
    return plan(open, Set.of(), state, firstWatch, rerunOnBaseMove);
  }

  /**
   * Plans the pulls, with {@code held} the open pulls the merge queue holds (they do not run on
   * their own: their batch is their run). A held pull is not planned, and the runs a stop dropped
   * of it are kept, for when it leaves the queue: open again, it runs; merged or closed, they are
   * ended.
   */
  public static Plan plan(
      List<PullAt> open,
      Set<String> held,
      RepoState state,
      boolean firstWatch,
      boolean rerunOnBaseMove) {
    List<Due> due = new ArrayList<>();
    List<PullAt> over = new ArrayList<>();
    Set<String> openUris = new HashSet<>();
    for (PullAt p : open) {
      openUris.add(p.uri());
      PullMark mark = state.pulls().get(p.uri());
      boolean atMark = mark != null && mark.head().equals(p.head()) && mark.base().equals(p.base());
      if (firstWatch) {
        over.add(p);
      } else if (state.asked().contains(p.uri())) {
        due.add(new Due(p, Why.ASKED, state.askedOnly().getOrDefault(p.uri(), Set.of())));
      } else if (!p.trust().runsAsItMoves()) {
        if (atMark && !dropped(state, p).isEmpty()) {
          // The owner's ask was dropped by a stop before it ran: it runs once, where it was asked.
          due.add(new Due(p, Why.DROPPED, dropped(state, p)));
        } else if (droppedOnAnotherBase(state, p)) {
          // Dropped there, and only the base moved since: all of it runs, on the base as it is.
          due.add(new Due(p, Why.DROPPED, Set.of()));
        } else if (!atMark) {
          over.add(p);
        }
      } else if (mark == null) {
        due.add(new Due(p, Why.NEW, Set.of()));
      } else if (!mark.head().equals(p.head())) {
        due.add(new Due(p, Why.MOVED, Set.of()));
      } else if (!mark.base().equals(p.base()) && rerunOnBaseMove) {
        due.add(new Due(p, Why.BASE_MOVED, Set.of()));
      } else if (!dropped(state, p).isEmpty()) {
        due.add(new Due(p, Why.DROPPED, dropped(state, p)));
      } else if (droppedOnAnotherBase(state, p)) {
        // A base that moved alone runs nothing here (a runner landing the queue), but a run a stop
        // dropped would then never run: all of it runs, on the base as it is.
        due.add(new Due(p, Why.DROPPED, Set.of()));
      }
    }
    Set<String> closed = new HashSet<>();
    for (String uri : state.pulls().keySet()) {
      if (!openUris.contains(uri)) {
        closed.add(uri);
      }
    }
    List<DroppedRun> movedOn = new ArrayList<>();
    for (PullAt p : open) {
      for (DroppedRun d : state.dropped()) {
        if (d.subject().equals(p.uri())
            && !(d.commit().equals(p.head()) && d.base().equals(p.base()))) {
          movedOn.add(d);
        }
      }
    }
    List<DroppedRun> closedOn = new ArrayList<>();
    for (DroppedRun d : state.dropped()) {
      if (isPull(d) && !openUris.contains(d.subject()) && !held.contains(d.subject())) {
        closedOn.add(d);
      }
    }
    return new Plan(due, over, closed, movedOn, closedOn);
  }

  /** Whether a dropped run is a pull's (its subject an AT-URI), not a ref's or a batch's. */
  private static boolean isPull(DroppedRun d) {
    return d.subject().startsWith("at://");
  }

  /** The workflows of {@code p}'s runs a stop dropped where it is now; empty when none. */
  private static Set<String> dropped(RepoState state, PullAt p) {
    Set<String> out = new java.util.LinkedHashSet<>();
    for (DroppedRun d : state.dropped()) {
      if (d.subject().equals(p.uri()) && d.commit().equals(p.head()) && d.base().equals(p.base())) {
        out.addAll(d.workflows());
      }
    }
    return out;
  }

  /** Whether a stop dropped runs of {@code p} at its head as it is now, on a base since moved. */
  private static boolean droppedOnAnotherBase(RepoState state, PullAt p) {
    return state.dropped().stream()
        .anyMatch(
            d ->
                d.subject().equals(p.uri())
                    && d.commit().equals(p.head())
                    && !d.base().equals(p.base()));
  }

  /**
   * The state once the plan's passed-over pulls are recorded, its closed ones forgotten and its
   * moved-on and closed-on runs forgotten. A run dropped after the pass read the state stays, for
   * the next pass, as do the runs dropped of a pull the merge queue holds.
   */
  public static RepoState settle(RepoState s, Plan plan) {
    RepoState out = s;
    for (DroppedRun d : plan.movedOn()) {
      out = out.withoutDropped(d);
    }
    for (DroppedRun d : plan.closedOn()) {
      out = out.withoutDropped(d);
    }
    for (String uri : plan.closed()) {
      out = out.withoutPull(uri).withoutAsked(uri);
    }
    for (PullAt p : plan.passedOver()) {
      out = out.withPull(p.uri(), new PullMark(p.head(), p.base()));
    }
    return out;
  }

  /**
   * The state once a due pull's checks are filed: it ran where it is, any ask is met, and the runs
   * dropped there that ran now are forgotten (one dropped since, or elsewhere, is left for the next
   * pass to run or end).
   */
  public static RepoState filed(RepoState s, Due due) {
    PullAt p = due.pull();
    return s.withPull(p.uri(), new PullMark(p.head(), p.base()))
        .withoutAsked(p.uri())
        .withoutDroppedRan(p.uri(), p.head(), p.base(), due.only());
  }
}
