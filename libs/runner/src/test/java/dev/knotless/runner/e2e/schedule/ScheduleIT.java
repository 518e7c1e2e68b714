package dev.knotless.runner.e2e.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who gets a job first, end to end: the operator's pause, the allowance, the public minutes record
 * and the CPU weight, in the all-in-one runner against the reference PDS.
 */
@WithPds
class ScheduleIT {

  private static String sleeper(String name) {
    return "name: " + name + "\non: {push: {refs: [main]}}\nsteps:\n  - run: sleep 2\n";
  }

  @Test
  void aPausedOwnersPushIsFiledErrorWithTheOperatorsReasonUntilTheFileNoLongerNamesThem(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Fleet f = new Fleet(pds, tmp)) {
      Path paused = tmp.resolve("paused.json");
      Files.writeString(paused, "{\"" + f.owner.did() + "\": \"mining, by the looks of it\"}");
      f.start("--paused", paused.toString());

      String held =
          f.commit(
              Map.of(".knotless/workflows/ci.yml", "on: {push: {}}\nsteps: [{run: 'true'}]\n"));
      f.push("main");
      CheckRecord c = f.awaitEnded("main", held, "ci");
      assertEquals(CheckStatus.ERROR, c.status(), String.valueOf(c));
      assertEquals("paused by this runner's operator: mining, by the looks of it", c.note());

      // The file is read again on every pass: no restart.
      Files.writeString(paused, "{}");
      String freed = f.commit(Map.of("README.md", "again\n"));
      f.push("main");
      assertEquals(CheckStatus.SUCCESS, f.awaitEnded("main", freed, "ci").status());
    }
  }

  @Test
  void anOwnerPastTheAllowanceHasRunsGoingOneAtATimeEachLogSayingSoAndTheMinutesPublished(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Fleet f = new Fleet(pds, tmp)) {
      // Two minutes the owner's runs took earlier today, as an earlier start of the runner left
      // them in the state: past an allowance of one.
      LocalDate today = LocalDate.now(ZoneOffset.UTC);
      new JsonStateStore(f.state())
          .update(f.owner.did() + "/3kearlierrepo", s -> s.withUsage(today, 120_000, false, today));
      f.start("--allowance", "1", "--jobs", "4");

      String sha =
          f.commit(
              Map.of(
                  ".knotless/workflows/a.yml", sleeper("a"),
                  ".knotless/workflows/b.yml", sleeper("b"),
                  ".knotless/workflows/c.yml", sleeper("c")));
      f.push("main");

      List<StepResult> steps = new ArrayList<>();
      for (String w : List.of("a", "b", "c")) {
        CheckRecord c = f.awaitEnded("main", sha, w);
        assertEquals(CheckStatus.SUCCESS, c.status(), String.valueOf(c));
        steps.add(c.steps().get(0));
        String log = f.log(c);
        assertTrue(
            log.startsWith(
                "==> this owner is past the allowance of this runner, so their runs go one at a"
                    + " time: this run waited "),
            log);
        assertTrue(log.lines().findFirst().orElseThrow().endsWith(" for a job"), log);
      }
      // With four jobs free, the three runs still went one after another.
      steps.sort(Comparator.comparing(StepResult::startedAt));
      for (int i = 1; i < steps.size(); i++) {
        assertTrue(
            !steps.get(i).startedAt().isBefore(steps.get(i - 1).endedAt()),
            "steps overlapped: " + steps);
      }

      JsonNode minutes =
          Fleet.awaitValue(
              "the owner's minutes record to count this push's runs",
              () ->
                  f.reader
                      .findRecord(f.runnerAccount.did(), "dev.knotless.minutes", f.owner.did())
                      .map(Record::value)
                      .orElse(null),
              v -> v.path("minutes").asLong() >= 2);
      assertEquals(1, minutes.path("allowance").asLong(), minutes.toString());
      assertEquals(
          today.plusDays(30).atStartOfDay().toInstant(ZoneOffset.UTC),
          Instant.parse(minutes.path("until").asText()),
          minutes.toString());
      Instant.parse(minutes.path("updatedAt").asText());
    }
  }

  @Test
  void aPushToAnotherBranchRunsItsStepsAtATenthOfTheCpuWeightOfMains(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Fleet f = new Fleet(pds, tmp)) {
      f.start();
      String sha =
          f.commit(
              Map.of(
                  ".knotless/workflows/nice.yml",
                  "on: {push: {}}\nsteps:\n  - run: echo \"niceness $(nice)\"\n"));
      f.push("main");
      f.push("feature");

      int own = ownNiceness();
      String mainLog = f.log(f.awaitEnded("main", sha, "nice"));
      String otherLog = f.log(f.awaitEnded("feature", sha, "nice"));
      assertTrue(mainLog.contains("niceness " + own + "\n"), mainLog);
      assertTrue(otherLog.contains("niceness " + (own + 10) + "\n"), otherLog);
    }
  }

  /** The niceness this JVM, and so the runner in it, runs at. */
  private static int ownNiceness() throws java.io.IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
  }
}
