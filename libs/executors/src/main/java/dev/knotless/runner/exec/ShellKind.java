package dev.knotless.runner.exec;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code shell} kind: each step a plain process on the runner's host, as its own user ({@link
 * ShellExecutor}). It owns no flags and can always run. Stateless.
 */
public final class ShellKind implements ExecutorKind<ShellKind.Settings> {

  /** What it is called. */
  public static final String NAME = "shell";

  private static final Logger LOG = LoggerFactory.getLogger(ShellKind.class);

  /** The shell executor has nothing to set. */
  public record Settings() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> flags() {
    return List.of();
  }

  @Override
  public String what() {
    return "runs steps on this host as this user";
  }

  @Override
  public Settings settings(ExecutorConfig config) {
    return new Settings();
  }

  @Override
  public Optional<String> unavailable(Settings settings) {
    return Optional.empty();
  }

  @Override
  public Executor open(Settings settings, ExecutorContext context) {
    LOG.warn(
        "the shell executor runs steps as this runner's own user, beside its credentials:"
            + " watch only repositories whose pushers you trust with this host");
    return new ShellExecutor(context.work(), context.clock(), context.env());
  }

  /** A few of the runner's own ({@link ShellExecutor#INHERITED} of them reach a step). */
  @Override
  public Map<String, String> hostEnvironment(Map<String, String> runnerEnv) {
    return runnerEnv;
  }
}
