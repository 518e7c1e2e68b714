package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.http.HttpClient;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProcessExitTest {
  /**
   * The exit finds a client's selector by the name the JDK gives it, and an interrupt ends it at
   * once. Were either to change with the JDK, every git operation would end 0.3 s later again.
   */
  @Test
  void aClientsSelectorIsFoundByNameAndEndsWhenInterrupted() throws Exception {
    Set<Thread> before = new HashSet<>(ProcessExit.selectors());
    HttpClient client = HttpClient.newBuilder().build();
    List<Thread> mine = ProcessExit.selectors().stream().filter(t -> !before.contains(t)).toList();
    assertEquals(1, mine.size(), "the new client's selector thread, by name");

    ProcessExit.stop(mine);
    mine.get(0).join(5_000); // the exit waits 0.1 s at most; a loaded test machine may take longer

    assertFalse(mine.get(0).isAlive(), "the selector still runs after the interrupt");
    assertEquals(HttpClient.Version.HTTP_2, client.version()); // kept reachable until here
  }
}
