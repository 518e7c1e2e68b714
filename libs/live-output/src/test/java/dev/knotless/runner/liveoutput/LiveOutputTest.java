package dev.knotless.runner.liveoutput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.StepResult;
import dev.knotless.runner.exec.StepStatus;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LiveOutputTest {

  /**
   * A step's end rings a round on the sender's thread, while the run's last step may have left its
   * last line unended and the run's last sends may begin on the caller's. Whichever goes first, the
   * appview must get each byte once, in order: a round that only says a step ended names where the
   * unsent text starts, not the end of the unended line, and the two never both send. Each send
   * here takes a few milliseconds, and half the runs let the round go before the last sends.
   */
  @Test
  void theLastSendsNeverOverlapARoundSoEachRunsSendsAreInOrderOnce() throws Exception {
    Map<String, List<Send>> got = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    LiveOutput.Sink sink =
        (uri, send, timeout) -> {
          AtomicInteger n = inFlight.computeIfAbsent(uri, u -> new AtomicInteger());
          if (n.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
          }
          try {
            Thread.sleep(3);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          got.computeIfAbsent(uri, u -> java.util.Collections.synchronizedList(new ArrayList<>()))
              .add(send);
          n.decrementAndGet();
          return false;
        };
    Map<String, String> logs = new ConcurrentHashMap<>();
    try (LiveOutput live = new LiveOutput(sink, Clock.systemUTC())) {
      for (int run = 0; run < 60; run++) {
        String key = "run" + run;
        String uri = "at://runner/dev.knotless.check/" + key;
        RunListener l = live.follow(key, uri);
        StringBuilder log = new StringBuilder();
        for (int step = 0; step < 3; step++) {
          String name = "s" + step;
          l.stepStarted(new RunListener.StepStarted(step, name, Instant.now(), 1, log.length()));
          // The last step prints one unended line and nothing else, as a `printf` would.
          for (int line = 0; line < (step == 2 ? 0 : 5); line++) {
            byte[] b = (key + " " + name + " line " + line + "\n").getBytes(StandardCharsets.UTF_8);
            l.logWritten(log.length(), b);
            log.append(new String(b, StandardCharsets.UTF_8));
          }
          if (step == 2) {
            Thread.sleep(10);
            l.logWritten(log.length(), "unended".getBytes(StandardCharsets.UTF_8));
            log.append("unended");
          }
          Instant now = Instant.now();
          l.stepEnded(new StepResult(name, StepStatus.SUCCESS, now, now, 0, ""), log.length());
          Thread.sleep(2);
        }
        Thread.sleep(run % 2 == 0 ? 30 : 0);
        live.finish(key);
        logs.put(uri, log.toString());
      }
    }
    assertEquals(0, overlaps.get(), "two sends for one run were in flight at once");
    for (Map.Entry<String, String> e : logs.entrySet()) {
      StringBuilder rebuilt = new StringBuilder();
      List<Send> sends = got.get(e.getKey());
      for (Send s : sends) {
        assertEquals(rebuilt.length(), s.offset(), "no gap, nothing twice in " + e.getKey());
        rebuilt.append(s.text());
      }
      assertEquals(e.getValue(), rebuilt.toString(), "the sends rebuild " + e.getKey());
      assertTrue(sends.get(sends.size() - 1).ended(), "the end comes last");
      assertEquals(1, sends.stream().filter(Send::ended).count(), "one end");
    }
  }
}
