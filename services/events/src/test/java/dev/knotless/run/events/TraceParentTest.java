package dev.knotless.run.events;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TraceParentTest {
  static final String GOOD = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void aWellFormedValueIsReadAndWrittenBackAsItWas() {
    TraceParent p = TraceParent.parse(GOOD).orElseThrow();
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", p.traceId());
    assertEquals("00f067aa0ba902b7", p.spanId());
    assertTrue(p.sampled());
    assertEquals(GOOD, p.value());
    assertArrayEquals(GOOD.getBytes(StandardCharsets.US_ASCII), p.header());
    assertFalse(TraceParent.parse(GOOD.substring(0, 53) + "00").orElseThrow().sampled());
  }

  @Test
  void aLaterVersionIsReadForTheFieldsItShares() {
    assertEquals(
        "4bf92f3577b34da6a3ce929d0e0e4736",
        TraceParent.parse("01" + GOOD.substring(2) + "-what-comes-later").orElseThrow().traceId());
  }

  @Test
  void malformedAndHostileValuesAreNoParentAndNeverThrow() {
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.add("");
    bad.add("garbage");
    bad.add(GOOD.toUpperCase()); // hex must be lowercase
    bad.add(GOOD + "-extra"); // version 00 has exactly four fields
    bad.add("ff" + GOOD.substring(2)); // version ff is forbidden
    bad.add("0g" + GOOD.substring(2));
    bad.add("00-00000000000000000000000000000000-00f067aa0ba902b7-01"); // no trace
    bad.add("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"); // no span
    bad.add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz");
    bad.add("00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01");
    bad.add("00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01"); // dash moved
    bad.add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n"); // a line break
    bad.add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba9\u00e9b7-01"); // not ASCII
    bad.add("01" + GOOD.substring(2) + "x"); // a later version's extra field needs its dash
    bad.add("01" + GOOD.substring(2) + "-" + "a".repeat(10_000)); // too long to read at all
    for (String v : bad) {
      assertEquals(Optional.empty(), TraceParent.parse(v), "" + v);
    }
  }

  @Test
  void aRecordNamesItsParentOnlyWithExactlyOneWellFormedHeader() {
    byte[] good = GOOD.getBytes(StandardCharsets.US_ASCII);
    assertTrue(TraceParent.fromHeaders(List.of(good)).isPresent());
    assertEquals(Optional.empty(), TraceParent.fromHeaders(null));
    assertEquals(Optional.empty(), TraceParent.fromHeaders(List.of()));
    // Two parents: which one is a guess, so neither.
    assertEquals(Optional.empty(), TraceParent.fromHeaders(List.of(good, good)));
    List<byte[]> none = new ArrayList<>();
    none.add(null);
    assertEquals(Optional.empty(), TraceParent.fromHeaders(none));
    assertEquals(Optional.empty(), TraceParent.fromHeaders(List.of(new byte[] {(byte) 0xff, 0})));
    assertEquals(Optional.empty(), TraceParent.fromHeaders(List.of(new byte[1 << 20])));
  }

  @Test
  void waitingParentsKeepTheOldestAndStopGrowingAtTheirLimit() {
    Traces.Waiting waiting = new Traces.Waiting();
    TraceParent first = TraceParent.parse(GOOD).orElseThrow();
    TraceParent second =
        TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8-01").orElseThrow();
    waiting.offer("did:plc:a/app", Optional.of(first));
    waiting.offer("did:plc:a/app", Optional.of(second));
    waiting.offer("did:plc:a/other", Optional.empty());
    assertEquals(Optional.of(first), waiting.take("did:plc:a/app"));
    assertEquals(Optional.empty(), waiting.take("did:plc:a/app"), "taken once");
    assertEquals(Optional.empty(), waiting.take("did:plc:a/other"));
    for (int i = 0; i < Traces.Waiting.LIMIT + 50; i++) {
      waiting.offer("repo-" + i, Optional.of(first));
    }
    assertEquals(Traces.Waiting.LIMIT, waiting.size());
  }
}
