package dev.knotless.runner.doorbell;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Rings doors from Jetstream ({@code --jetstream}): JSON events of every account's record changes,
 * filtered by the server to the matcher's collections ({@code wantedCollections}) and the watched
 * owners ({@code wantedDids}). With a {@link CursorStore} it keeps the newest event's {@code
 * time_us} and connects {@link #REWIND} before it, so a restart or a reconnection resumes near
 * where it stopped (the overlap only rings doors twice, which passes fold); without one it connects
 * with no cursor. The cursor is a saving, never relied on: every connection still rings every door.
 * When the set of owners changes while connected, it sends Jetstream an {@code options_update}
 * rather than reconnecting, so a new repository does not ring every door.
 *
 * <p>See {@link WebSocketSource} for the ping and reconnect rules. Thread-safe.
 */
public final class JetstreamSource extends WebSocketSource {
  /** The Jetstream used when {@code --jetstream} is not given. */
  public static final URI DEFAULT_URL =
      URI.create("wss://jetstream2.us-east.bsky.network/subscribe");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How far before the last event seen a connection resumes, in case the last were not whole. */
  public static final java.time.Duration REWIND = java.time.Duration.ofSeconds(5);

  private final URI base;
  private final CursorStore cursors;
  private final java.util.concurrent.atomic.AtomicLong lastTimeUs =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param base the Jetstream subscribe address ({@code ws://} or {@code wss://}), without the
   *     filter parameters, which are added at each connection
   * @param matcher decides which frames ring which doors, and gives the filters
   * @param sink where rings go
   * @param clock time for the silence watch and the backoff
   * @param timings ping, give-up and backoff durations
   * @throws IllegalArgumentException naming the address if it is not a ws:// or wss:// URL
   */
  public JetstreamSource(
      URI base, DoorMatcher matcher, DoorbellSink sink, DoorClock clock, SourceTimings timings) {
    this(base, matcher, sink, clock, timings, CursorStore.NONE);
  }

  /** As the other constructor, keeping the cursor in {@code cursors}. */
  public JetstreamSource(
      URI base,
      DoorMatcher matcher,
      DoorbellSink sink,
      DoorClock clock,
      SourceTimings timings,
      CursorStore cursors) {
    super("jetstream", matcher, sink, clock, timings);
    this.cursors = cursors;
    cursors.load().ifPresent(lastTimeUs::set);
    String scheme = base.getScheme();
    if (!"ws".equals(scheme) && !"wss".equals(scheme) || base.getHost() == null) {
      throw new IllegalArgumentException(
          "--jetstream must be a ws:// or wss:// URL, got \"" + base + "\"");
    }
    this.base = base;
    matcher.onOwnersChanged(this::ownersChanged);
  }

  /**
   * The subscribe address for these filters: {@code base} plus one {@code wantedCollections} per
   * collection and one {@code wantedDids} per owner, each sorted. No cursor.
   */
  public static URI subscribeUri(
      URI base, Collection<String> collections, Collection<String> dids) {
    StringBuilder uri = new StringBuilder(base.toString());
    char separator = base.getRawQuery() == null ? '?' : '&';
    for (String collection : new TreeSet<>(collections)) {
      uri.append(separator).append("wantedCollections=").append(encode(collection));
      separator = '&';
    }
    for (String did : new TreeSet<>(dids)) {
      uri.append(separator).append("wantedDids=").append(encode(did));
      separator = '&';
    }
    return URI.create(uri.toString());
  }

  /** The {@code options_update} message that sets these filters on an open connection. */
  public static String optionsUpdate(Collection<String> collections, Collection<String> dids) {
    ObjectNode message = JSON.createObjectNode().put("type", "options_update");
    ObjectNode payload = message.putObject("payload");
    ArrayNode wantedCollections = payload.putArray("wantedCollections");
    new TreeSet<>(collections).forEach(wantedCollections::add);
    ArrayNode wantedDids = payload.putArray("wantedDids");
    new TreeSet<>(dids).forEach(wantedDids::add);
    return message.toString();
  }

  @Override
  URI uri() {
    URI uri = subscribeUri(base, matcher().collections(), matcher().owners());
    long last = lastTimeUs.get();
    if (last <= 0) {
      return uri;
    }
    long from = Math.max(1, last - REWIND.toNanos() / 1_000);
    return URI.create(uri + (uri.getRawQuery() == null ? "?" : "&") + "cursor=" + from);
  }

  /** The newest event's {@code time_us} seen or kept, or 0. */
  public long cursor() {
    return lastTimeUs.get();
  }

  @Override
  List<RecordChange> changes(String text) {
    JetstreamFrames.Event e = JetstreamFrames.parseEvent(text);
    if (e.timeUs() > 0) {
      lastTimeUs.accumulateAndGet(e.timeUs(), Math::max);
      cursors.seen(e.timeUs());
    }
    return e.change().map(List::of).orElse(List.of());
  }

  @Override
  public void close() {
    super.close();
    cursors.flush();
  }

  @Override
  List<RecordChange> changes(byte[] bytes) {
    // Binary frames are zstd-compressed events, sent only to clients that ask for compression.
    throw new IllegalArgumentException(
        "Jetstream sent a binary frame of " + bytes.length + " bytes; compression was not asked");
  }

  private void ownersChanged() {
    Set<String> owners = matcher().owners();
    // If not connected, the next connection's address carries the new filter anyway.
    send(optionsUpdate(matcher().collections(), owners));
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
