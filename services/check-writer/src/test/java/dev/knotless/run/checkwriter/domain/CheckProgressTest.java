package dev.knotless.run.checkwriter.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.knotless.atproto.BlobRef;
import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckProgressTest {
  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
  private static final String KEY = "k";
  private static final RunEvent.Filed FILED =
      new RunEvent.Filed(
          KEY,
          T0,
          "did:plc:owner",
          "3krepo",
          "refs/heads/main",
          null,
          "c1",
          null,
          "ci",
          null,
          false);

  @Test
  void aFiledRunIsAQueuedCheckOfItsRepository() {
    CheckRecord r = CheckProgress.filed(FILED).record(null);
    assertEquals(CheckStatus.QUEUED, r.status());
    assertEquals("at://did:plc:owner/dev.knotless.repo/3krepo", r.repo());
    assertEquals(T0, r.createdAt());
    assertNull(r.startedAt());
  }

  @Test
  void aRunGoesRunningThenEndsWithItsStepsAndTheirTimes() {
    CheckProgress p =
        CheckProgress.filed(FILED)
            .apply(new RunEvent.Started(KEY, T0.plusSeconds(1)))
            .apply(new RunEvent.StepStarted(KEY, T0.plusSeconds(2), "build"));
    assertEquals(CheckStatus.RUNNING, p.status());
    assertEquals("build", p.progress().stepGoing());
    p = p.apply(new RunEvent.StepEnded(KEY, T0.plusSeconds(5), "build", "failure", 3000));
    assertEquals(List.of("build=failure"), p.progress().stepsEnded());
    assertNull(p.progress().stepGoing());
    p =
        p.apply(
            new RunEvent.Ended(
                KEY, T0.plusSeconds(6), "failure", 42, List.of(), "step build failed"));
    CheckRecord r = p.record(null);
    assertEquals(CheckStatus.FAILURE, r.status());
    assertEquals(T0.plusSeconds(1), r.startedAt());
    assertEquals(T0.plusSeconds(6), r.endedAt());
    assertEquals(T0.plusSeconds(2), r.steps().get(0).startedAt());
    assertEquals(42, p.logLength());
    assertEquals("step build failed", r.note());
  }

  @Test
  void aSkippedStepIsFiledWithItsNoteAndNoTimesAsTheAllInOneFilesIt() {
    String why = "not run: could not pull image \"127.0.0.1:5000/gone:1\": ErrImagePull";
    CheckProgress p =
        CheckProgress.filed(FILED)
            .apply(new RunEvent.Started(KEY, T0.plusSeconds(1)))
            .apply(new RunEvent.StepEnded(KEY, T0.plusSeconds(2), "build", "skipped", 0, why))
            .apply(new RunEvent.Ended(KEY, T0.plusSeconds(3), "error", 10, List.of(), why));
    StepResult step = p.record(null).steps().get(0);
    assertEquals(StepResult.Status.SKIPPED, step.status());
    assertEquals(why, step.note());
    assertNull(step.startedAt());
    assertNull(step.endedAt());
  }

  @Test
  void anEndsOutputsAreFiledAsTheAllInOneFilesThemInTheirOrderAndCanBeLetGo() {
    BlobRef log = new BlobRef("bafkreilog", "text/plain; charset=utf-8", 10);
    BlobRef shot = new BlobRef("bafkreishot", "image/png", 256);
    BlobRef note = new BlobRef("bafkreinote", "image/svg+xml", 18);
    CheckProgress p =
        CheckProgress.filed(FILED)
            .apply(new RunEvent.Started(KEY, T0.plusSeconds(1)))
            .apply(
                new RunEvent.Ended(
                    KEY,
                    T0.plusSeconds(2),
                    "success",
                    10,
                    List.of(),
                    null,
                    List.of(
                        new RunEvent.ImageOutput("shot.png", shot.cid(), "image/png", 256),
                        new RunEvent.ImageOutput("note.svg", note.cid(), "image/svg+xml", 18))));

    CheckRecord r = p.record(log);
    assertEquals(
        List.of(
            CheckRecord.imageOutput("shot.png", shot), CheckRecord.imageOutput("note.svg", note)),
        r.outputs());
    assertEquals("dev.knotless.check#imageOutput", r.outputs().get(0).path("$type").asText());
    assertEquals(r, CheckRecord.fromJson(r.toJson()));
    CheckRecord without = p.withoutOutputs().record(log);
    assertEquals(List.of(), without.outputs());
    assertEquals(log, without.log());
    assertEquals(CheckStatus.SUCCESS, without.status());
  }
}
