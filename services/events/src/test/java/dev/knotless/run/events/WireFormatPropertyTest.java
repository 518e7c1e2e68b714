package dev.knotless.run.events;

import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.testing.Fuzz;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The run-event and doorbell decoders over hostile text: random bytes and mutations of valid
 * events. An event either decodes or is refused with an IllegalArgumentException naming what is
 * wrong (which sends it to the dead-letter topic); nothing else escapes to stop a consumer.
 */
class WireFormatPropertyTest {

  @Test
  void runEventsDecodeOrAreRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED);
    byte[] output =
        Fuzz.utf8(
            RunEventJson.encode(
                new RunEvent.Output(
                    "k", Instant.parse("2026-11-29T10:00:00Z"), 42, "line\n".getBytes())));
    Fuzz.byteCases(
        "RunEventJson.decode",
        r,
        500,
        Fuzz.ByteCases.of(output, Fuzz.JSON_TOKENS, Fuzz.utf8("["), Fuzz.utf8("{\"a\":")),
        Fuzz::text,
        RunEventJson::decode,
        IllegalArgumentException.class);
  }

  @Test
  void treeMutatedRunEventsDecodeOrAreRefusedNamingWhy() throws Exception {
    Random r = new Random(Fuzz.SEED + 1);
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode output =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            json.readTree(
                RunEventJson.encode(
                    new RunEvent.Output(
                        "k", Instant.parse("2026-11-29T10:00:00Z"), 42, "line\n".getBytes())));
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally tally = new Fuzz.Tally();
          for (int i = 0; i < n; i++) {
            tally.add(
                Fuzz.holds(
                    "RunEventJson.decode",
                    Fuzz.mutateTree(r, output).toString(),
                    RunEventJson::decode,
                    IllegalArgumentException.class));
          }
          tally.assertBothOutcomes("RunEventJson.decode (tree)");
        });
  }

  @Test
  void doorbellsDecodeOrAreRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED + 2);
    byte[] bell = Fuzz.utf8(DoorbellMessage.encode(Doorbell.frame("dev.knotless.ref")));
    Fuzz.byteCases(
        "DoorbellMessage.decode",
        r,
        500,
        Fuzz.ByteCases.of(bell, Fuzz.JSON_TOKENS, Fuzz.utf8("{\"reason\":")).randomUpTo(64),
        Fuzz::text,
        DoorbellMessage::decode,
        IllegalArgumentException.class);
  }
}
