package dev.knotless.runner.doorbell;

import java.net.URI;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rings doors from one PDS's firehose ({@code --firehose}, {@code
 * com.atproto.sync.subscribeRepos}), for owners whose PDS is not relayed by a Jetstream, or a
 * runner beside its own PDS. It carries every account's commits on that PDS; the matcher keeps
 * those of watched repositories. It connects without a cursor. An error frame is logged and the
 * connection made again.
 *
 * <p>See {@link WebSocketSource} for the ping and reconnect rules. Thread-safe.
 */
public final class FirehoseSource extends WebSocketSource {
  private static final Logger LOG = LoggerFactory.getLogger(FirehoseSource.class);
  private static final String PATH = "/xrpc/com.atproto.sync.subscribeRepos";

  private final URI uri;

  /**
   * @param pds the PDS, as {@code http(s)://host[:port]} or {@code ws(s)://host[:port]}
   * @param matcher decides which commits ring which doors
   * @param sink where rings go
   * @param clock time for the silence watch and the backoff
   * @param timings ping, give-up and backoff durations
   * @throws IllegalArgumentException naming the address if it is none of those forms
   */
  public FirehoseSource(
      URI pds, DoorMatcher matcher, DoorbellSink sink, DoorClock clock, SourceTimings timings) {
    super("firehose", matcher, sink, clock, timings);
    this.uri = subscribeUri(pds);
  }

  /** The subscribeRepos address of a PDS: http becomes ws, https becomes wss; no cursor. */
  public static URI subscribeUri(URI pds) {
    String scheme = pds.getScheme() == null ? "" : pds.getScheme();
    String ws;
    switch (scheme) {
      case "http":
      case "ws":
        ws = "ws";
        break;
      case "https":
      case "wss":
        ws = "wss";
        break;
      default:
        ws = null;
        break;
    }
    if (ws == null || pds.getHost() == null) {
      throw new IllegalArgumentException(
          "--firehose must be a PDS URL (http, https, ws or wss), got \"" + pds + "\"");
    }
    String port = pds.getPort() == -1 ? "" : ":" + pds.getPort();
    return URI.create(ws + "://" + pds.getHost() + port + PATH);
  }

  @Override
  URI uri() {
    return uri;
  }

  @Override
  List<RecordChange> changes(String text) {
    throw new IllegalArgumentException(
        "the firehose sent a text frame; it speaks DAG-CBOR binary frames only");
  }

  @Override
  List<RecordChange> changes(byte[] bytes) throws GiveUp {
    FirehoseFrames.Frame frame = FirehoseFrames.parse(bytes);
    if (frame instanceof FirehoseFrames.Commit) {
      return ((FirehoseFrames.Commit) frame).changes();
    }
    if (frame instanceof FirehoseFrames.Failure) {
      FirehoseFrames.Failure failure = (FirehoseFrames.Failure) frame;
      throw new GiveUp("error frame " + failure.error() + ": " + failure.message());
    }
    LOG.trace("firehose {} frame ignored", ((FirehoseFrames.Other) frame).type());
    return List.of();
  }
}
