package dev.knotless.runner.discover;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.invites.RunnerInvites;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a runner's invites from where the last reading ended, kept in the state file. */
class InviteReaderTest {

  /** An appview of numbered invites: a cursor is how many were listed before it. */
  private static final class Appview implements InviteReader.Pages {
    final List<String> asked = new ArrayList<>();
    int invites;
    boolean down;

    @Override
    public RunnerInvites.Page page(String cursor) throws IOException {
      asked.add(String.valueOf(cursor));
      if (down) {
        throw new IOException("the appview is down");
      }
      int from = cursor == null ? 0 : Integer.parseInt(cursor);
      List<RunnerInvites.Invite> page = new ArrayList<>();
      for (int i = from; i < Math.min(invites, from + RunnerInvites.PAGE); i++) {
        page.add(new RunnerInvites.Invite("did:plc:owner", "repo" + i, "did:plc:owner"));
      }
      return new RunnerInvites.Page(page, String.valueOf(from + page.size()), 0);
    }
  }

  private final List<String> looked = new ArrayList<>();

  private InviteReader reader(Appview appview, Path state) {
    return new InviteReader(appview, new JsonStateStore(state), i -> looked.add(i.name()));
  }

  @Test
  void pagesAreReadToTheEndAndWhereTheyEndedIsKept(@TempDir Path tmp) {
    Appview appview = new Appview();
    appview.invites = 103;
    assertEquals(103, reader(appview, tmp.resolve("s.json")).read());
    assertEquals(List.of("null", "100"), appview.asked);
    assertEquals(103, looked.size());
    assertEquals("103", new JsonStateStore(tmp.resolve("s.json")).runner().invited());
  }

  @Test
  void aRestartReadsFromWhereTheLastReadingEndedNotFromTheStart(@TempDir Path tmp) {
    Appview appview = new Appview();
    appview.invites = 2;
    Path state = tmp.resolve("s.json");
    reader(appview, state).read();
    appview.invites = 3;
    looked.clear();
    appview.asked.clear();

    // A new reader over the same file, as a restarted runner has.
    assertEquals(1, reader(appview, state).read());
    assertEquals(List.of("2"), appview.asked);
    assertEquals(List.of("repo2"), looked);
    assertEquals("3", new JsonStateStore(state).runner().invited());
  }

  @Test
  void nothingNewerAsksOnceAndKeepsTheCursor(@TempDir Path tmp) {
    Appview appview = new Appview();
    appview.invites = 1;
    Path state = tmp.resolve("s.json");
    reader(appview, state).read();
    appview.asked.clear();
    assertEquals(0, reader(appview, state).read());
    assertEquals(List.of("1"), appview.asked);
    assertEquals("1", new JsonStateStore(state).runner().invited());
  }

  @Test
  void anAppviewThatDoesNotAnswerMovesNothing(@TempDir Path tmp) {
    Appview appview = new Appview();
    appview.invites = 5;
    appview.down = true;
    Path state = tmp.resolve("s.json");
    assertEquals(0, reader(appview, state).read());
    assertEquals("", new JsonStateStore(state).runner().invited());
    appview.down = false;
    assertEquals(5, reader(appview, state).read());
    assertEquals(Arrays.asList("null", "null"), appview.asked);
  }

  @Test
  void aPageWithAnInviteThatCouldNotBeLookedAtIsReadAgain(@TempDir Path tmp) {
    Appview appview = new Appview();
    appview.invites = 3;
    Path state = tmp.resolve("s.json");
    boolean[] hostUp = {false};
    InviteReader r =
        new InviteReader(
            appview,
            new JsonStateStore(state),
            i -> {
              looked.add(i.name());
              return hostUp[0] || !i.name().equals("repo1");
            });
    assertEquals(3, r.read());
    assertEquals("", new JsonStateStore(state).runner().invited());
    hostUp[0] = true;
    assertEquals(3, r.read());
    assertEquals(List.of("null", "null"), appview.asked);
    assertEquals("3", new JsonStateStore(state).runner().invited());
  }

  @Test
  void invitesNamingNoRepositoryStillMoveTheCursorOn(@TempDir Path tmp) {
    InviteReader.Pages hostile =
        cursor ->
            cursor == null
                ? new RunnerInvites.Page(List.of(), "7", 7)
                : new RunnerInvites.Page(List.of(), cursor, 0);
    Path state = tmp.resolve("s.json");
    new InviteReader(hostile, new JsonStateStore(state), i -> true).read();
    assertEquals("7", new JsonStateStore(state).runner().invited());
  }
}
