package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PodStateTest {

  private static final Duration GRACE = Duration.ofSeconds(30);

  private static PodState.Verdict verdict(PodState s, Duration failing) {
    return s.verdict("p", "img:1", failing, GRACE);
  }

  @Test
  void aRunningContainerIsReadyAndAPendingOneWaits() {
    assertEquals(
        new PodState.Verdict.Running(),
        verdict(new PodState(true, "Running", null, null), Duration.ZERO));
    assertEquals(
        new PodState.Verdict.Waiting(),
        verdict(new PodState(true, "Pending", "ContainerCreating", null), Duration.ZERO));
  }

  @Test
  void aPullErrorWaitsOutItsGraceThenFailsNamingTheImage() {
    PodState pulling = new PodState(true, "Pending", "ImagePullBackOff", "not found");
    assertEquals(new PodState.Verdict.Waiting(), verdict(pulling, Duration.ofSeconds(29)));
    assertEquals(
        new PodState.Verdict.Failed("could not pull image img:1: ImagePullBackOff: not found"),
        verdict(pulling, GRACE));
  }

  @Test
  void aVanishedEndedOrMisconfiguredPodFailsAtOnce() {
    assertEquals(
        new PodState.Verdict.Failed("pod p vanished before it ran"),
        verdict(new PodState(false, null, null, null), Duration.ZERO));
    assertEquals(
        new PodState.Verdict.Failed("pod p ended before its steps started (Failed: evicted)"),
        verdict(new PodState(true, "Failed", null, "evicted"), Duration.ZERO));
    assertEquals(
        new PodState.Verdict.Failed(
            "pod p cannot start: CreateContainerConfigError: RuntimeClass \"x\" not found"),
        verdict(
            new PodState(
                true, "Pending", "CreateContainerConfigError", "RuntimeClass \"x\" not found"),
            Duration.ZERO));
  }

  @Test
  void aStartedPodIsLostOnceGoneDeletingEndedOrOnANodeThatStoppedAnswering() {
    org.junit.jupiter.api.Assertions.assertNull(PodState.lost("p", true, "Running", false, null));
    assertEquals("lost pod p: it was deleted", PodState.lost("p", false, null, false, null));
    assertEquals(
        "lost pod p: it is being deleted (Evicted)",
        PodState.lost("p", true, "Running", true, "Evicted"));
    assertEquals(
        "lost pod p: its node stopped answering (phase Unknown, NodeLost)",
        PodState.lost("p", true, "Unknown", false, "NodeLost"));
    assertEquals("lost pod p: it ended (Failed)", PodState.lost("p", true, "Failed", false, ""));
  }
}
