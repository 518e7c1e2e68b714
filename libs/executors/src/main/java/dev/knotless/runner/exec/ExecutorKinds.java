package dev.knotless.runner.exec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * The registry of executor kinds a runner can choose from, in order of preference: the kinds on the
 * class path (each module lists its own in {@code META-INF/services/}{@link ExecutorKind}: libs'
 * executors list {@code docker} and {@code shell}, runtime/pods {@code pod}), plus any added with
 * {@link #with}. Immutable, so thread-safe.
 */
public final class ExecutorKinds {

  private final Map<String, ExecutorKind<?>> kinds;

  private ExecutorKinds(Map<String, ExecutorKind<?>> kinds) {
    this.kinds = kinds;
  }

  /** The kinds on the class path, in the order their modules list them. */
  public static ExecutorKinds installed() {
    List<ExecutorKind<?>> found = new ArrayList<>();
    for (ExecutorKind<?> k :
        ServiceLoader.load(ExecutorKind.class, ExecutorKind.class.getClassLoader())) {
      found.add(k);
    }
    return of(found);
  }

  /** Exactly these kinds, in this order. */
  public static ExecutorKinds of(List<? extends ExecutorKind<?>> kinds) {
    Map<String, ExecutorKind<?>> byName = new LinkedHashMap<>();
    for (ExecutorKind<?> k : kinds) {
      byName.put(k.name(), k);
    }
    return new ExecutorKinds(byName);
  }

  /** These kinds with {@code kind} in place of the one of its name, or last. */
  public ExecutorKinds with(ExecutorKind<?> kind) {
    Map<String, ExecutorKind<?>> copy = new LinkedHashMap<>(kinds);
    copy.put(kind.name(), kind);
    return new ExecutorKinds(copy);
  }

  /** The kinds' names, in order. */
  public List<String> names() {
    return List.copyOf(kinds.keySet());
  }

  /** The kind called {@code name}, if there is one. */
  public Optional<ExecutorKind<?>> find(String name) {
    return Optional.ofNullable(kinds.get(name));
  }

  /**
   * The kind called {@code name}.
   *
   * @throws IllegalArgumentException naming the kinds there are, for another name
   */
  public ExecutorKind<?> kind(String name) {
    return find(name)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no executor called " + name + ": expected " + String.join(" or ", names())));
  }

  /** The kind called {@code name}, which must be a {@code type}. */
  public <K extends ExecutorKind<?>> K kind(String name, Class<K> type) {
    ExecutorKind<?> k = kind(name);
    if (!type.isInstance(k)) {
      throw new IllegalArgumentException(
          "the executor called " + name + " is a " + k.getClass().getName() + ", not " + type);
    }
    return type.cast(k);
  }

  /** The kind called {@code name} with its settings read from {@code config}. */
  public ChosenExecutor<?> choose(String name, ExecutorConfig config) {
    return ChosenExecutor.of(kind(name), config);
  }

  /** Every flag some kind reads, once each, in the kinds' order. */
  public List<String> flags() {
    return kinds.values().stream().flatMap(k -> k.flags().stream()).distinct().toList();
  }

  /** The first kind that reads {@code flag}, if any. */
  public Optional<ExecutorKind<?>> owner(String flag) {
    return kinds.values().stream().filter(k -> k.flags().contains(flag)).findFirst();
  }

  /**
   * The first kind, in order of preference, that can run here with its settings read from {@code
   * config}; {@code say} is told why each one before it cannot, and which was chosen.
   *
   * @throws IllegalStateException when none can, with every reason
   */
  public ChosenExecutor<?> detect(ExecutorConfig config, Consumer<String> say) {
    List<String> why = new ArrayList<>();
    for (ExecutorKind<?> k : kinds.values()) {
      ChosenExecutor<?> c = ChosenExecutor.of(k, config);
      Optional<String> no = c.unavailable();
      if (no.isEmpty()) {
        say.accept("using the " + k.name() + " executor");
        return c;
      }
      say.accept("not the " + k.name() + " executor: " + no.get());
      why.add(k.name() + ": " + no.get());
    }
    throw new IllegalStateException("no executor can run here: " + String.join("; ", why));
  }
}
