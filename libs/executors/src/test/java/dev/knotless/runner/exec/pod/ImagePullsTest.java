package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ImagePullsTest {

  private static final Instant T = Instant.parse("2026-12-05T12:00:00Z");

  private static ImagePulls.Event pulling(Instant at) {
    return new ImagePulls.Event("Pulling", "Pulling image \"reg/x:1\"", at);
  }

  private static ImagePulls.Event pulled(String message, Instant at) {
    return new ImagePulls.Event("Pulled", message, at);
  }

  @Test
  void aPulledEventGivesThePullsOwnTimeNotTheWaitBehindOthers() {
    assertEquals(
        Optional.of(Duration.ofMillis(1234)),
        ImagePulls.pullTime(
            List.of(
                pulling(T),
                pulled(
                    "Successfully pulled image \"reg/x:1\" in 1.234s (2.5s including waiting)",
                    T.plusSeconds(3)))));
  }

  @Test
  void everyWayKubeletsHavePrintedTheTimeIsRead() {
    // 1.30 and later append the image's size; 1.25 to 1.27 gave the time alone.
    assertEquals(
        Optional.of(Duration.ofMillis(850)),
        ImagePulls.inMessage(
            "Successfully pulled image \"reg/x:1\" in 850ms (850ms including waiting)."
                + " Image size: 1069215 bytes."));
    assertEquals(
        Optional.of(Duration.ofNanos(2_345_678_901L)),
        ImagePulls.inMessage("Successfully pulled image \"reg/x:1\" in 2.345678901s"));
    assertEquals(
        Optional.of(Duration.ofSeconds(62).plusMillis(500)),
        ImagePulls.inMessage("Successfully pulled image \"reg/x:1\" in 1m2.5s"));
    assertEquals(
        Optional.of(Duration.ofNanos(123_400)),
        ImagePulls.inMessage("Successfully pulled image \"reg/x:1\" in 123.4µs"));
    assertEquals(
        Optional.of(Duration.ofHours(1).plusMinutes(2).plusSeconds(3)),
        ImagePulls.goDuration("1h2m3s"));
  }

  @Test
  void aKubeletThatNamesNoTimeIsTimedFromItsPullingEvent() {
    assertEquals(
        Optional.of(Duration.ofSeconds(4)),
        ImagePulls.pullTime(
            List.of(
                pulling(T), pulled("Successfully pulled image \"reg/x:1\"", T.plusSeconds(4)))));
    assertEquals(
        Optional.empty(),
        ImagePulls.pullTime(List.of(pulled("Successfully pulled image \"reg/x:1\"", T))),
        "no Pulling event: no time to go by");
  }

  @Test
  void anImageAlreadyOnTheNodeOrAFailedPullGivesNothing() {
    assertEquals(
        Optional.empty(),
        ImagePulls.pullTime(
            List.of(pulled("Container image \"reg/x:1\" already present on machine", T))));
    assertEquals(
        Optional.empty(),
        ImagePulls.pullTime(
            List.of(
                pulling(T),
                new ImagePulls.Event(
                    "Failed", "Failed to pull image \"reg/x:1\": not found", T.plusSeconds(1)))));
    assertEquals(Optional.empty(), ImagePulls.pullTime(List.of()));
  }

  @Test
  void aTimeThatIsNotGosIsNotGuessedAt() {
    assertEquals(Optional.empty(), ImagePulls.goDuration("1.5"));
    assertEquals(Optional.empty(), ImagePulls.goDuration("fast"));
    assertEquals(Optional.empty(), ImagePulls.goDuration("1s2"));
    assertEquals(Optional.of(Duration.ZERO), ImagePulls.goDuration("0s"));
  }
}
