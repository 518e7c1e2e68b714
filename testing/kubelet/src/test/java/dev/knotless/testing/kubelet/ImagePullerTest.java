package dev.knotless.testing.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ImagePullerTest {

  @Test
  void timesArePrintedAsGoPrintsADuration() {
    assertEquals("0s", ImagePuller.goDuration(Duration.ZERO));
    assertEquals("412.3ms", ImagePuller.goDuration(Duration.ofNanos(412_300_000)));
    assertEquals("1.234567891s", ImagePuller.goDuration(Duration.ofNanos(1_234_567_891)));
    assertEquals("2s", ImagePuller.goDuration(Duration.ofSeconds(2)));
    assertEquals("1m2.5s", ImagePuller.goDuration(Duration.ofMillis(62_500)));
    assertEquals("1h0m0s", ImagePuller.goDuration(Duration.ofHours(1)));
    assertEquals("12.5µs", ImagePuller.goDuration(Duration.ofNanos(12_500)));
    assertEquals("900ns", ImagePuller.goDuration(Duration.ofNanos(900)));
  }

  @Test
  void thePolicyDefaultsAsTheApiServerDefaultsIt() {
    assertEquals("Always", ImagePuller.defaultPolicy("busybox"));
    assertEquals("Always", ImagePuller.defaultPolicy("127.0.0.1:5000/knotless/x:latest"));
    assertEquals("IfNotPresent", ImagePuller.defaultPolicy("127.0.0.1:5000/knotless/x:1"));
    assertEquals("IfNotPresent", ImagePuller.defaultPolicy("reg.example/x@sha256:abc"));
  }

  @Test
  void onlyRegistriesOnTheLoopbackArePulledFrom() {
    assertEquals("docker.io", ImagePuller.registry("knotless-test/busybox:1"));
    assertEquals("docker.io", ImagePuller.registry("busybox"));
    assertEquals("127.0.0.1:5000", ImagePuller.registry("127.0.0.1:5000/knotless/x:1"));
    assertEquals("localhost", ImagePuller.registry("localhost/x:1"));
    assertTrue(ImagePuller.loopback("127.0.0.1:5000"));
    assertTrue(ImagePuller.loopback("localhost:5000"));
    assertFalse(ImagePuller.loopback("docker.io"));
    assertFalse(ImagePuller.loopback("127.example:5000"));
  }
}
