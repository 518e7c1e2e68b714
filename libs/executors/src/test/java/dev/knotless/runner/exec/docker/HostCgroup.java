package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A running container's CPU accounting as the host's kernel keeps it, read from the cgroup of the
 * container's first process (runc's init, or runsc's whole sandbox): so a limit is seen as the
 * kernel enforces it, whatever the runtime tells the processes inside. cgroup v1 and v2.
 */
final class HostCgroup {

  /** CPU time used and periods throttled, read at one moment. */
  record Sample(long nanos, long usedNanos, long throttled) {

    /** The CPUs used on average between {@code earlier} and this sample. */
    double cpusSince(Sample earlier) {
      return (double) (usedNanos - earlier.usedNanos) / (nanos - earlier.nanos);
    }
  }

  private final Path usage;
  private final Path stat;
  private final boolean v2;

  private HostCgroup(Path usage, Path stat, boolean v2) {
    this.usage = usage;
    this.stat = stat;
    this.v2 = v2;
  }

  /** The CPU cgroup of container {@code id}, once it runs. */
  static HostCgroup cpuOf(DockerClient docker, String id) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      Long pid = docker.inspectContainerCmd(id).exec().getState().getPidLong();
      if (pid != null && pid > 0) {
        return of(Files.readAllLines(Path.of("/proc/" + pid + "/cgroup")));
      }
      Thread.sleep(50);
    }
    throw new AssertionError("container " + id + " never ran");
  }

  private static HostCgroup of(List<String> lines) {
    Path root = Path.of("/sys/fs/cgroup");
    String unified = null;
    for (String line : lines) {
      String[] parts = line.split(":", 3);
      if (List.of(parts[1].split(",")).contains("cpu")) {
        Path cpu = root.resolve(parts[1]).resolve(parts[2].substring(1));
        Path acct = root.resolve("cpuacct").resolve(parts[2].substring(1));
        return new HostCgroup(
            Files.exists(cpu.resolve("cpuacct.usage"))
                ? cpu.resolve("cpuacct.usage")
                : acct.resolve("cpuacct.usage"),
            cpu.resolve("cpu.stat"),
            false);
      }
      if (parts[0].equals("0") && parts[1].isEmpty()) {
        unified = parts[2];
      }
    }
    if (unified == null) {
      throw new AssertionError("no cpu cgroup in " + lines);
    }
    Path dir = root.resolve(unified.substring(1));
    return new HostCgroup(dir.resolve("cpu.stat"), dir.resolve("cpu.stat"), true);
  }

  /** The CPUs the kernel lets the cgroup use (its CFS quota over its period); 0 for no limit. */
  double quotaCpus() throws IOException {
    Path dir = stat.getParent();
    if (v2) {
      String[] max = Files.readString(dir.resolve("cpu.max")).strip().split(" ");
      return max[0].equals("max") ? 0 : Double.parseDouble(max[0]) / Double.parseDouble(max[1]);
    }
    long quota = Long.parseLong(Files.readString(dir.resolve("cpu.cfs_quota_us")).strip());
    long period = Long.parseLong(Files.readString(dir.resolve("cpu.cfs_period_us")).strip());
    return quota <= 0 ? 0 : (double) quota / period;
  }

  Sample sample() throws IOException {
    long now = System.nanoTime();
    long used =
        v2 ? field(usage, "usage_usec") * 1_000 : Long.parseLong(Files.readString(usage).strip());
    return new Sample(now, used, field(stat, "nr_throttled"));
  }

  private static long field(Path file, String name) throws IOException {
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith(name + " ")) {
        return Long.parseLong(line.substring(name.length() + 1).strip());
      }
    }
    throw new AssertionError("no " + name + " in " + file);
  }
}
