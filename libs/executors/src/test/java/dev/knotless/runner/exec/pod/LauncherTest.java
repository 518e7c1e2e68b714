package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class LauncherTest {

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void theEnvironmentGoesOnStdinFramedByItsByteCountAndNeverInTheCommand() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("TOKEN", "s3cret");
    env.put("PEM", "line one\nline 'two'");
    byte[] stdin = Launcher.stdin(env, "echo hi");
    String s = text(stdin);
    int newline = s.indexOf('\n');
    assertEquals(stdin.length - newline - 1, Integer.parseInt(s.substring(0, newline)));
    assertEquals(
        "export TOKEN='s3cret'\n"
            + "export PEM='line one\nline '\\''two'\\'''\n"
            + "knotless_script='echo hi'\n",
        s.substring(newline + 1));
    List<String> command = Launcher.launchCommand(0, 0);
    assertFalse(String.join(" ", command).contains("s3cret"));
    assertEquals(List.of("sh", "-c"), command.subList(0, 2));
  }

  @Test
  void theFirstStepsExecUnpacksThenLaunchesAsAnyOtherAndNamesNoSecret() {
    List<String> command = Launcher.unpackAndLaunchCommand(0, 5);
    assertEquals(
        List.of("sh", "-c", Launcher.UNPACK_AND_LAUNCH, "knotless-unpack-launch", "0", "5"),
        command);
    assertTrue(Launcher.UNPACK_AND_LAUNCH.endsWith(Launcher.LAUNCH), "the launch comes last");
    Map<String, String> env = Map.of("TOKEN", "s3cret");
    assertTrue(
        new String(Launcher.stdin(env, "echo hi"), StandardCharsets.UTF_8).contains("s3cret"));
    assertFalse(String.join(" ", command).contains("s3cret"));
  }

  @Test
  void theByteCountIsOfBytesNotCharacters() {
    byte[] stdin = Launcher.stdin(Map.of("A", "é"), "");
    String s = text(stdin);
    int newline = s.indexOf('\n');
    assertEquals(stdin.length - newline - 1, Integer.parseInt(s.substring(0, newline)));
  }

  @Test
  void aVariableNoShellCanNameOrOneOfTheLaunchersIsRefusedWithoutItsValue() {
    for (String name : List.of("A-B", "1A", "A B", "$(x)", "knotless_script", "knotless_d")) {
      var e =
          assertThrows(
              IllegalArgumentException.class, () -> Launcher.stdin(Map.of(name, "v4lue"), "true"));
      assertTrue(e.getMessage().contains(name), e.getMessage());
      assertFalse(e.getMessage().contains("v4lue"), e.getMessage());
    }
  }

  @Test
  void anExitRecordIsReadOnlyWhenItHoldsAStatus() {
    assertEquals(OptionalInt.of(3), Launcher.parseExit("3\n"));
    assertEquals(OptionalInt.of(137), Launcher.parseExit("137"));
    assertEquals(OptionalInt.empty(), Launcher.parseExit(""));
    assertEquals(OptionalInt.empty(), Launcher.parseExit("13x"));
    assertEquals(OptionalInt.empty(), Launcher.parseExit("99999"));
  }

  @Test
  void everyCommandPassesItsStepAndOffsetAsArgumentsNotInTheScript() {
    assertEquals(
        List.of("sh", "-c", Launcher.FOLLOW, "knotless-follow", "2", "4096"),
        Launcher.followCommand(2, 4096));
    assertEquals(List.of("sh", "-c", Launcher.KILL, "knotless-kill", "2"), Launcher.killCommand(2));
    assertThrows(IllegalArgumentException.class, () -> Launcher.tailCommand(0, -1));
  }
}
