package dev.knotless.runner.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What a run's steps left in {@code KNOTLESS_RUN_OUTPUTS}, every file of it as text, read by an
 * {@link AfterSteps} hook before the run's directory goes: tests use it to see what a step saw,
 * whether or not the file would become one of the check's outputs.
 */
public final class OutputsDir implements AfterSteps {

  private final Map<String, String> files = new TreeMap<>();

  @Override
  public RunResult apply(Path checkout, RunResult result) {
    Path dir = checkout.resolveSibling("outputs");
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).toList()) {
        files.put(dir.relativize(p).toString(), Files.readString(p));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return result;
  }

  /** The file's text, or an assertion error naming what there was. */
  public String get(String name) {
    String text = files.get(name);
    if (text == null) {
      throw new AssertionError("no output " + name + " among " + files.keySet());
    }
    return text;
  }

  /** Every file's text, by name. */
  public Map<String, String> all() {
    return files;
  }
}
