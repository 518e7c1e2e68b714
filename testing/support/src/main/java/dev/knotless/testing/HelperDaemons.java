package dev.knotless.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The resident git helpers ({@code HelperDaemon}) that runs with {@code KNOTLESS_HELPER_DIR} set to
 * a directory of a test's or a benchmark's started: found by the address files there, which name
 * each daemon's process, and stopped by it.
 */
public final class HelperDaemons {
  private HelperDaemons() {}

  /** The daemons whose address files are in {@code dir} and whose processes are alive. */
  public static List<ProcessHandle> in(Path dir) throws IOException {
    List<ProcessHandle> found = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return found;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(HelperDaemons::isAddressFile).toList()) {
        pid(f).flatMap(ProcessHandle::of).filter(HelperDaemons::isDaemon).ifPresent(found::add);
      }
    }
    return found;
  }

  /** Stops every daemon {@link #in} finds, and waits up to 10 s for each to end. */
  public static void stopAll(Path dir) throws IOException {
    for (ProcessHandle p : in(dir)) {
      p.destroy();
      try {
        p.onExit().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        p.destroyForcibly();
      }
    }
  }

  private static boolean isAddressFile(Path f) {
    String name = f.getFileName().toString();
    return name.startsWith("helper-") && !name.contains(".") && Files.isRegularFile(f);
  }

  /** The third field of an address file: {@code <port> <token> <pid>}. */
  static Optional<Long> pid(Path addressFile) {
    try {
      String[] fields = Files.readString(addressFile, StandardCharsets.US_ASCII).strip().split(" ");
      return fields.length == 3 ? Optional.of(Long.parseLong(fields[2])) : Optional.empty();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** A pid read from a file could have been handed on: end only what is a helper daemon. */
  private static boolean isDaemon(ProcessHandle p) {
    return p.info().arguments().stream()
        .flatMap(Stream::of)
        .anyMatch(a -> a.equals("dev.knotless.storage.remote.HelperDaemon"));
  }
}
