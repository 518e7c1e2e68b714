package dev.knotless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.cli.CliContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code knotless} command line as a user types it, without any server. */
class KnotlessCliTest {

  record Ran(int exit, String out, String err) {}

  /** Runs {@code argv}; a command that gets as far as the network fails the test. */
  static Ran knotless(String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx =
        new CliContext(
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            () -> {
              throw new AssertionError("parsing alone must not open the cache or a connection");
            });
    int exit = KnotlessCli.run(List.of(argv), ctx);
    return new Ran(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Every command's words, such as {@code [repo, commit]}, subcommands included. */
  static List<List<String>> commands() {
    List<List<String>> all = new ArrayList<>();
    walk(
        KnotlessCli.commandLine(new CliContext(Map.of(), System.out, System.err, null)),
        List.of(),
        all);
    return all;
  }

  private static void walk(CommandLine cl, List<String> words, List<List<String>> all) {
    for (Map.Entry<String, CommandLine> e : cl.getSubcommands().entrySet()) {
      if (e.getKey().equals("help")) {
        continue;
      }
      List<String> w = new ArrayList<>(words);
      w.add(e.getKey());
      all.add(w);
      walk(e.getValue(), w, all);
    }
  }

  @Test
  void everyCommandHasHelpThatNamesItAndExitsZero() {
    List<List<String>> commands = commands();
    assertTrue(
        commands.containsAll(
            List.of(
                List.of("login"),
                List.of("logout"),
                List.of("repo", "compact"),
                List.of("repo", "commit"),
                List.of("repo", "rename"),
                List.of("repo", "delete"),
                List.of("create"),
                List.of("runners"),
                List.of("checks"),
                List.of("rerun"),
                List.of("merge"),
                List.of("queue"),
                List.of("dequeue"),
                List.of("secret", "set"),
                List.of("secret", "list"),
                List.of("secret", "rm"),
                List.of("check"),
                List.of("log"),
                List.of("lint"),
                List.of("workflows"),
                List.of("account"),
                List.of("account", "delete-data"),
                List.of("completion"))),
        commands.toString());
    for (List<String> words : commands) {
      for (String flag : List.of("--help", "-h")) {
        List<String> argv = new ArrayList<>(words);
        argv.add(flag);
        Ran r = knotless(argv.toArray(String[]::new));
        assertEquals(0, r.exit(), argv + ": " + r.err());
        assertTrue(r.out().startsWith("Usage: knotless " + String.join(" ", words)), r.out());
        assertTrue(r.out().contains("--help"), r.out());
        assertEquals("", r.err(), argv.toString());
      }
    }
    // The command lists show each command's first line: a whole sentence, not half of one.
    CommandLine root =
        KnotlessCli.commandLine(new CliContext(Map.of(), System.out, System.err, null));
    for (List<String> words : commands) {
      CommandLine c = root;
      for (String w : words) {
        c = c.getSubcommands().get(w);
      }
      String summary = c.getCommandSpec().usageMessage().description()[0];
      assertTrue(summary.endsWith(".") && summary.length() <= 66, words + ": " + summary);
    }
    Ran help = knotless("help", "runners");
    assertEquals(0, help.exit(), help.err());
    assertTrue(help.out().startsWith("Usage: knotless runners"), help.out());
  }

  @Test
  void versionIsPrintedByTheToolAndEveryCommand() {
    Ran v = knotless("--version");
    assertEquals(0, v.exit(), v.err());
    assertTrue(v.out().matches("knotless \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R"), v.out());
    Ran sub = knotless("runners", "--version");
    assertEquals(0, sub.exit(), sub.err());
    assertEquals(v.out(), sub.out());
  }

  @Test
  void flagsTakeTheirValueAfterAnEqualsSignOrAsTheNextArgumentAndDoubleDashEndsThem() {
    CommandLine cl =
        KnotlessCli.commandLine(new CliContext(Map.of(), System.out, System.err, null));
    CommandLine.ParseResult eq =
        cl.parseArgs("rerun", "--ref=main", "--var=A=1", "--var", "B=2", "alice.test/site");
    RerunCli rerun = (RerunCli) eq.subcommand().commandSpec().userObject();
    assertEquals("main", rerun.ref);
    assertEquals(List.of("A=1", "B=2"), rerun.vars);
    assertEquals("alice.test/site", rerun.url);

    cl = KnotlessCli.commandLine(new CliContext(Map.of(), System.out, System.err, null));
    CommandLine.ParseResult dashes =
        cl.parseArgs("repo", "commit", "--branch=b", "-m", "fix", "--", "-odd/name");
    RepoCli.Commit commit =
        (RepoCli.Commit) dashes.subcommand().subcommand().commandSpec().userObject();
    assertEquals("-odd/name", commit.url);
    assertEquals("b", commit.branch);
    assertEquals("fix", commit.message);
  }

  @Test
  void aBadCommandLineSaysWhatIsWrongShowsTheUsageAndExitsTwo() {
    Ran none = knotless();
    assertEquals(2, none.exit());
    assertTrue(none.err().contains("name a command"), none.err());

    Ran unknown = knotless("runners", "alice.test/site", "--bogus");
    assertEquals(2, unknown.exit());
    assertTrue(unknown.err().contains("--bogus"), unknown.err());
    assertTrue(unknown.err().contains("Usage: knotless runners"), unknown.err());
    assertFalse(unknown.out().contains("Usage"), unknown.out());

    Ran noValue = knotless("checks", "alice.test/site", "--ref");
    assertEquals(2, noValue.exit());
    assertTrue(noValue.err().contains("--ref"), noValue.err());

    Ran notANumber = knotless("merge", "at://did:plc:x/dev.knotless.pull/k", "--every=soon");
    assertEquals(2, notANumber.exit());
    assertTrue(notANumber.err().contains("soon"), notANumber.err());

    Ran badAction = knotless("runners", "alice.test/site", "promote", "did:plc:x");
    assertEquals(2, badAction.exit());
    assertTrue(badAction.err().contains("unknown action promote"), badAction.err());

    Ran typo = knotless("runer");
    assertEquals(2, typo.exit());
    assertTrue(typo.err().contains("runer"), typo.err());

    Ran unsure = knotless("repo", "delete", "alice.test/site");
    assertEquals(2, unsure.exit());
    assertTrue(unsure.err().contains("--yes"), unsure.err());

    Ran badName = knotless("repo", "rename", "alice.test/site", "a/b");
    assertEquals(2, badName.exit());
    assertTrue(badName.err().contains("the new name a/b"), badName.err());

    Ran badPull = knotless("queue", "https://example.com/pull/1");
    assertEquals(2, badPull.exit());
    assertTrue(badPull.err().contains("expected a pull's AT-URI"), badPull.err());
  }

  @Test
  void completionIsGeneratedFromTheCommandTreeForBashAndZsh() {
    Ran bash = knotless("completion", "bash");
    assertEquals(0, bash.exit(), bash.err());
    for (List<String> words : commands()) {
      assertTrue(bash.out().contains(words.get(words.size() - 1)), words.toString());
    }
    assertTrue(bash.out().contains("complete -F _complete_knotless"), bash.out());
    assertTrue(bash.out().contains("--watch") && bash.out().contains("--json"), bash.out());
    Ran zsh = knotless("completion", "zsh");
    assertEquals(0, zsh.exit(), zsh.err());
    assertTrue(zsh.out().contains("bashcompinit"), zsh.out());
    Ran fish = knotless("completion", "fish");
    assertEquals(2, fish.exit());
    assertTrue(fish.err().contains("fish"), fish.err());
  }

  @Test
  void helpFillsTheTerminalsWidthOnEveryCommand() {
    CommandLine root =
        KnotlessCli.commandLine(new CliContext(Map.of(), System.out, System.err, null));
    List<CommandLine> all = new ArrayList<>(List.of(root));
    for (int i = 0; i < all.size(); i++) {
      all.addAll(all.get(i).getSubcommands().values());
    }
    for (CommandLine c : all) {
      assertTrue(c.isUsageHelpAutoWidth(), c.getCommandName());
    }
  }

  @Test
  void aBadLimitOrStatusIsAUsageErrorBeforeAnythingIsRead() {
    Ran zero = knotless("checks", "alice.test/site", "--limit", "0");
    assertEquals(2, zero.exit());
    assertTrue(zero.err().contains("--limit must be 1 or more"), zero.err());
    Ran bogus = knotless("checks", "alice.test/site", "--status", "bogus");
    assertEquals(2, bogus.exit());
    assertTrue(bogus.err().contains("--status bogus is not a check status"), bogus.err());
    Ran neither = knotless("check", "alice.test/site");
    assertEquals(2, neither.exit());
    assertTrue(neither.err().contains("name a check, or give --ref or --workflow"), neither.err());
    Ran color = knotless("checks", "alice.test/site", "--color=sometimes");
    assertEquals(2, color.exit());
    assertTrue(color.err().contains("sometimes"), color.err());
  }
}
