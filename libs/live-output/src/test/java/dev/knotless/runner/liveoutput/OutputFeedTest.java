package dev.knotless.runner.liveoutput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputFeedTest {
  private static final Progress P = new Progress(Instant.EPOCH, List.of(), "build");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aSecretPrintedInTwoWritesIsMaskedBecauseOnlyWholeLinesAreMasked() throws Exception {
    OutputFeed feed = new OutputFeed(line -> line.replace("hunter2", "***"));
    feed.feed(0, b("token hun"));
    feed.feed(9, b("ter2\n"));
    List<Send> sent = new ArrayList<>();
    feed.round(P, s -> sent.add(s));
    assertEquals("token ***\n", sent.get(0).text());
  }

  @Test
  void aFailedSendIsHeldAndGoesInTheNextRoundInOrder() {
    OutputFeed feed = new OutputFeed(l -> l, 6, new HoldBuffer());
    feed.feed(0, b("one\ntwo\nsix\n"));
    List<String> got = new ArrayList<>();
    OutputFeed.Round first =
        feed.round(
            P,
            s -> {
              if (got.size() == 1) {
                throw new IOException("appview down");
              }
              got.add(s.text());
              return false;
            });
    assertEquals(1, first.sent());
    assertNotNull(first.failure());
    feed.round(P, s -> got.add(s.text()));
    assertEquals(List.of("one\n", "two\n", "six\n"), got);
  }

  @Test
  void pastAMegabyteHeldTheOldestIsLetGo() {
    HoldBuffer hold = new HoldBuffer();
    String piece = "x".repeat(15_999) + "\n";
    for (int i = 0; i < 80; i++) {
      hold.add(List.of(new Piece(i * 16_000L, piece)));
    }
    assertTrue(hold.heldBytes() <= HoldBuffer.MAX_HELD_BYTES);
    assertEquals(80 * 16_000 - hold.heldBytes(), hold.droppedBytes());
  }

  @Test
  void roundsComeEverySecondWhileAPageFollowsAndEveryFiveOtherwise() {
    OutputFeed feed = new OutputFeed(l -> l);
    assertEquals(Duration.ofSeconds(5), feed.interval());
    feed.feed(0, b("a\n"));
    feed.round(P, s -> true);
    assertEquals(Duration.ofSeconds(1), feed.interval());
    feed.feed(2, b("b\n"));
    feed.round(P, s -> false);
    assertEquals(Duration.ofSeconds(5), feed.interval());
  }

  @Test
  void aProgressOnlySendWhileALineIsUnendedNamesWhereThatLineStarts() {
    OutputFeed feed = new OutputFeed(l -> l);
    feed.feed(0, b("==> two\n"));
    List<Send> sent = new ArrayList<>();
    feed.round(P, sent::add);
    feed.feed(8, b("unended"));
    feed.progressChanged();
    feed.round(P, sent::add);
    assertEquals(8, sent.get(1).offset(), "not 15: those bytes have not been sent");
    assertEquals("", sent.get(1).text());
    List<Send> last = feed.finalSends(P);
    assertEquals(8, last.get(0).offset());
    assertEquals("unended", last.get(0).text());
  }

  @Test
  void aStepChangeSendsProgressEvenWithNoNewText() {
    OutputFeed feed = new OutputFeed(l -> l);
    List<Send> sent = new ArrayList<>();
    feed.round(P, sent::add);
    feed.round(P, sent::add);
    feed.progressChanged();
    assertTrue(feed.dueNow());
    feed.round(P, sent::add);
    assertEquals(2, sent.size());
    assertEquals("", sent.get(1).text());
  }

  @Test
  void theLastSendCarriesTheUnendedLineAndSaysTheRunEnded() {
    OutputFeed feed = new OutputFeed(l -> l);
    feed.feed(0, b("done\nno newline"));
    List<Send> last = feed.finalSends(P);
    assertEquals("done\nno newline", String.join("", last.stream().map(Send::text).toList()));
    assertTrue(last.subList(0, last.size() - 1).stream().noneMatch(Send::ended));
    assertTrue(last.get(last.size() - 1).ended());
  }
}
