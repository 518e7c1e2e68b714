package dev.knotless.runner.pass;

import dev.knotless.atproto.space.SpaceId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * When each space's {@code registerNotify} is next due: at once for a space newly watched, every
 * {@link #EVERY} after one that took (sooner, halfway to its end, if the authority keeps the ask
 * for less than a day), and {@link #RETRY} after one that failed. Driven by the clock its callers
 * read, so a test moves time. Thread-safe.
 */
public final class NotifyRenewals {
  /** How often a registration is made again: twelve hours, as runner.md says. */
  public static final Duration EVERY = Duration.ofHours(12);

  /** How soon a registration that failed is tried again. */
  public static final Duration RETRY = Duration.ofMinutes(5);

  private final Map<SpaceId, Instant> next = new HashMap<>();
  private final Map<SpaceId, Instant> until = new HashMap<>();

  /**
   * Keeps to {@code spaces}: a space new there is due at {@code now}, one gone is forgotten.
   *
   * @return the spaces due at {@code now}
   */
  public synchronized List<SpaceId> due(Set<SpaceId> spaces, Instant now) {
    next.keySet().retainAll(spaces);
    until.keySet().retainAll(spaces);
    spaces.forEach(s -> next.putIfAbsent(s, now));
    List<SpaceId> out = new ArrayList<>();
    next.forEach(
        (s, at) -> {
          if (!now.isBefore(at)) {
            out.add(s);
          }
        });
    out.sort(java.util.Comparator.comparing(SpaceId::toString));
    return out;
  }

  /** The authority took the ask at {@code now}, keeping it till {@code expires}. */
  public synchronized void registered(SpaceId space, Instant now, Instant expires) {
    until.put(space, expires);
    Duration half = Duration.between(now, expires).dividedBy(2);
    next.put(space, now.plus(half.compareTo(EVERY) < 0 ? half : EVERY));
  }

  /** The ask failed at {@code now}; what was registered before stands till it ends. */
  public synchronized void failed(SpaceId space, Instant now) {
    next.put(space, now.plus(RETRY));
  }

  /** Whether the authority keeps an ask for {@code space} at {@code now}. */
  public synchronized boolean registered(SpaceId space, Instant now) {
    Instant u = until.get(space);
    return u != null && now.isBefore(u);
  }
}
