package dev.knotless.runner.engine;

import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.secrets.RunnerKeyFile;
import dev.knotless.runner.secrets.RunnerKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * {@code knotless-run secrets-key (init | show | rotate | retire) [--secrets-key <file> | --state
 * <file>]}: makes the key file if there is none (for a runner that cannot make its own, such as the
 * distributed shape's, which mounts it from a Kubernetes Secret), lists the runner's keys, puts a
 * new one first (the runner publishes it within a sweep and still opens what was sealed to the old
 * ones), or, once owners have sealed their secrets again, keeps only the newest. Prints did:keys,
 * never a private key. Stateless.
 */
public final class KeyCommand {

  /** The word that starts it. */
  public static final String WORD = "secrets-key";

  private KeyCommand() {}

  /** Runs it with the arguments after {@link #WORD}; returns the exit code. */
  public static int run(
      List<String> args, Map<String, String> env, Clock clock, PrintStream out, PrintStream err) {
    if (args.isEmpty()) {
      err.println("knotless-run secrets-key: expected init, show, rotate or retire");
      return 2;
    }
    Path file = null;
    Path state = null;
    for (int i = 1; i < args.size(); i++) {
      String a = args.get(i);
      if ((a.equals("--secrets-key") || a.equals("--state")) && i + 1 < args.size()) {
        Path p = Path.of(args.get(++i));
        if (a.equals("--state")) {
          state = p;
        } else {
          file = p;
        }
      } else {
        err.println("knotless-run secrets-key: unknown argument " + a);
        return 2;
      }
    }
    if (file == null) {
      file =
          (state != null ? state : RunnerOptions.defaultState(env))
              .toAbsolutePath()
              .resolveSibling("secrets-key.json");
    }
    try {
      RunnerKeys keys =
          switch (args.get(0)) {
            case "init" -> RunnerKeyFile.loadOrCreate(file, clock.instant());
            case "show" -> RunnerKeyFile.read(file);
            case "rotate" -> RunnerKeyFile.rotate(file, clock.instant());
            case "retire" -> RunnerKeyFile.retire(file);
            default -> null;
          };
      if (keys == null) {
        err.println("knotless-run secrets-key: unknown action " + args.get(0));
        return 2;
      }
      for (RunnerKeys.Key k : keys.keys()) {
        out.println(k.didKey() + "\t" + k.createdAt() + (k == keys.newest() ? "\tpublished" : ""));
      }
      return 0;
    } catch (java.nio.file.NoSuchFileException e) {
      err.println(
          "knotless-run secrets-key: no key file at "
              + file
              + ": the runner makes one on its first start");
      return 1;
    } catch (IOException e) {
      err.println("knotless-run secrets-key: " + e.getMessage());
      return 1;
    }
  }
}
