package dev.knotless.run.events;

import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.testing.Fuzz;
import java.nio.charset.StandardCharsets;
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
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally tally = new Fuzz.Tally();
          for (int i = 0; i < n; i++) {
            byte[] text =
                i % 5 == 0
                    ? Fuzz.randomBytes(r, 256)
                    : Fuzz.mutate(
                        r,
                        output,
                        Fuzz.JSON_TOKENS,
                        r.nextBoolean() ? Fuzz.utf8("[") : Fuzz.utf8("{\"a\":"));
            tally.add(
                Fuzz.holds(
                    "RunEventJson.decode",
                    new String(text, StandardCharsets.UTF_8),
                    RunEventJson::decode,
                    IllegalArgumentException.class));
          }
          tally.assertBothOutcomes("RunEventJson.decode");
        });
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
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally tally = new Fuzz.Tally();
          for (int i = 0; i < n; i++) {
            byte[] text =
                i % 5 == 0
                    ? Fuzz.randomBytes(r, 64)
                    : Fuzz.mutate(r, bell, Fuzz.JSON_TOKENS, Fuzz.utf8("{\"reason\":"));
            tally.add(
                Fuzz.holds(
                    "DoorbellMessage.decode",
                    new String(text, StandardCharsets.UTF_8),
                    DoorbellMessage::decode,
                    IllegalArgumentException.class));
          }
          tally.assertBothOutcomes("DoorbellMessage.decode");
        });
  }
}
