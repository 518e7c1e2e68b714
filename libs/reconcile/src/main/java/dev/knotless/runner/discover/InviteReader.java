package dev.knotless.runner.discover;

import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.invites.RunnerInvites;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the runner's invites to private repositories from where the last reading ended (the state's
 * {@code invited}), page by page, handing each to be looked at, and keeps where each page ended
 * once every invite on it is settled, so a start does not read old pages again. An invite that
 * could not be looked at for a moment (a host that did not answer) keeps its page's cursor where it
 * was: the page is read again at the next sweep. Thread-safe: readings run one at a time.
 */
public final class InviteReader {
  private static final Logger LOG = LoggerFactory.getLogger(InviteReader.class);

  /** The most pages one reading takes; the rest wait for the next sweep. */
  static final int MAX_PAGES = 20;

  /** Where the pages come from: the appview's {@code listRunnerInvites}. */
  @FunctionalInterface
  public interface Pages {
    RunnerInvites.Page page(String cursor) throws IOException;
  }

  /** Looks at one invite. */
  @FunctionalInterface
  public interface Looker {
    /**
     * @return true when it is settled (watched, or passed over for good), false when it could not
     *     be looked at now and should be read again later
     */
    boolean look(RunnerInvites.Invite invite);
  }

  private final Pages pages;
  private final StateStore state;
  private final Looker looker;

  public InviteReader(Pages pages, StateStore state, Looker looker) {
    this.pages = pages;
    this.state = state;
    this.looker = looker;
  }

  /**
   * One reading: the pages after the state's cursor, up to {@link #MAX_PAGES}.
   *
   * @return how many invites it handed to be looked at
   */
  public synchronized int read() {
    String cursor = state.runner().invited();
    int seen = 0;
    for (int i = 0; i < MAX_PAGES; i++) {
      RunnerInvites.Page page;
      try {
        page = pages.page(cursor.isEmpty() ? null : cursor);
      } catch (IOException | RuntimeException e) {
        LOG.warn("reading this runner's invites at the appview: {}", e.getMessage());
        return seen;
      }
      if (page.refused() > 0) {
        LOG.warn(
            "the appview listed {} invite(s) naming no repository; passed over", page.refused());
      }
      boolean settled = true;
      for (RunnerInvites.Invite invite : page.invites()) {
        seen++;
        settled &= looker.look(invite);
      }
      if (!settled) {
        LOG.info("an invite could not be looked at now; its page is read again at the next sweep");
        return seen;
      }
      String next = page.cursor();
      if (next.equals(cursor)) {
        return seen;
      }
      state.updateRunner(r -> r.withInvited(next));
      cursor = next;
      if (page.invites().size() + page.refused() < RunnerInvites.PAGE) {
        return seen;
      }
    }
    return seen;
  }
}
