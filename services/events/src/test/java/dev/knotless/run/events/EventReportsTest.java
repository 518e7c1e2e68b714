package dev.knotless.run.events;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.workflow.Superseded;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventReportsTest {
  static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  static PlannedRun run() {
    Instant now = Instant.parse("2026-12-02T10:00:00Z");
    return new PlannedRun(
        "alice.test/app",
        new RunRequest(
            "3kcheck#1",
            "did:plc:alice",
            "did:plc:alice/3kabc",
            "refs/heads/feature",
            SubjectKind.REF,
            "fmt",
            SHA,
            RunClass.ASKED,
            Superseded.FINISH,
            false),
        new CheckRecord(
            "at://did:plc:alice/dev.knotless.repo/app",
            "refs/heads/feature",
            SHA,
            null,
            null,
            "fmt",
            CheckStatus.QUEUED,
            now,
            null,
            null,
            List.of(),
            null,
            List.of(),
            null),
        () -> {
          throw new PlannedRun.PrepareException("not prepared here");
        });
  }

  @Test
  void whatIsAddedToTheLogAfterTheStepsGoesOutBeforeTheEndSoTheEventsHoldTheWholeLog() {
    List<RunEvent> events = new ArrayList<>();
    EventReports reports =
        new EventReports(
            events::add,
            new EventReports.Queue() {
              @Override
              public void started(String checkKey) {}

              @Override
              public void ended(String checkKey) {}
            },
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    PlannedRun run = run();
    RunListener listener = reports.listener(run);
    byte[] steps = "==> generate\n".getBytes(StandardCharsets.UTF_8);
    listener.logWritten(0, steps);
    RunResult ran = new RunResult(List.of(), new RunOutcome.Passed(), steps, List.of());
    listener.runEnded(ran);
    // A write-back's hook adds its line once the steps ended, after the listener last heard.
    byte[] whole =
        (new String(steps, StandardCharsets.UTF_8) + "==> wrote back 1 files\n")
            .getBytes(StandardCharsets.UTF_8);
    reports.ended(
        run, null, new RunResult(List.of(), new RunOutcome.Passed(), whole, List.of()), null);

    ByteArrayOutputStream rebuilt = new ByteArrayOutputStream();
    for (RunEvent e : events.subList(0, events.size() - 1)) {
      RunEvent.Output o = assertInstanceOf(RunEvent.Output.class, e);
      assertEquals(rebuilt.size(), o.offset());
      rebuilt.write(o.data(), 0, o.data().length);
    }
    assertArrayEquals(whole, rebuilt.toByteArray());
    RunEvent.Ended end = assertInstanceOf(RunEvent.Ended.class, events.get(events.size() - 1));
    assertEquals(whole.length, end.logLength());
    assertEquals("3kcheck", end.checkKey());
  }

  private static final EventReports.Queue QUEUE =
      new EventReports.Queue() {
        @Override
        public void started(String checkKey) {}

        @Override
        public void ended(String checkKey) {}
      };

  @Test
  void aRunsOutputsAreUploadedAsItEndsAndItsEndCarriesTheirReferencesInOrder() {
    List<RunEvent> events = new ArrayList<>();
    List<String> uploaded = new ArrayList<>();
    EventReports reports =
        new EventReports(
            events::add,
            QUEUE,
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
            (run, files) -> {
              List<RunEvent.ImageOutput> out = new ArrayList<>();
              for (RunResult.OutputFile f : files) {
                uploaded.add(f.name());
                out.add(
                    new RunEvent.ImageOutput(
                        f.name(), "bafkrei" + f.name().length(), "image/png", f.bytes().length));
              }
              return out;
            });
    PlannedRun run = run();
    RunListener listener = reports.listener(run);
    byte[] log = "==> shoot\n".getBytes(StandardCharsets.UTF_8);
    listener.logWritten(0, log);
    RunResult ran =
        new RunResult(
            List.of(),
            new RunOutcome.Passed(),
            log,
            List.of(
                new RunResult.OutputFile("a.png", new byte[] {1, 2}),
                new RunResult.OutputFile("bb.png", new byte[] {3})));
    listener.runEnded(ran);
    reports.ended(run, null, ran, null);

    assertEquals(List.of("a.png", "bb.png"), uploaded);
    RunEvent.Ended end = assertInstanceOf(RunEvent.Ended.class, events.get(events.size() - 1));
    assertEquals(
        List.of(
            new RunEvent.ImageOutput("a.png", "bafkrei5", "image/png", 2),
            new RunEvent.ImageOutput("bb.png", "bafkrei6", "image/png", 1)),
        end.outputs());
    assertEquals(log.length, end.logLength());
  }

  @Test
  void outputsThePdsWouldNotTakeLeaveALineInTheLogAndTheRunStillEnds() {
    List<RunEvent> events = new ArrayList<>();
    EventReports reports =
        new EventReports(
            events::add,
            QUEUE,
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
            (run, files) -> {
              throw new java.io.IOException("uploadBlob: 413 BlobTooLarge");
            });
    PlannedRun run = run();
    RunListener listener = reports.listener(run);
    byte[] log = "==> shoot\n".getBytes(StandardCharsets.UTF_8);
    listener.logWritten(0, log);
    RunResult ran =
        new RunResult(
            List.of(),
            new RunOutcome.Passed(),
            log,
            List.of(new RunResult.OutputFile("a.png", new byte[] {1})));
    listener.runEnded(ran);
    reports.ended(run, null, ran, null);

    RunEvent.Output line = assertInstanceOf(RunEvent.Output.class, events.get(events.size() - 2));
    assertEquals(log.length, line.offset());
    assertEquals(
        "==> the run's outputs could not be uploaded: uploadBlob: 413 BlobTooLarge\n",
        new String(line.data(), StandardCharsets.UTF_8));
    RunEvent.Ended end = assertInstanceOf(RunEvent.Ended.class, events.get(events.size() - 1));
    assertEquals(List.of(), end.outputs());
    assertEquals("success", end.status());
    assertEquals(log.length + line.data().length, end.logLength());
  }
}
