package dev.knotless.runner.doorbell;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WebSocket event source that only rings doors: it connects without a cursor, hands every record
 * change to the {@link DoorMatcher} and rings the doors it names, and rings every door each time a
 * connection is made, since anything may have passed while it was not connected.
 *
 * <p>Connection rules ({@link SourceTimings}): a connection quiet for {@code silence} is sent a
 * ping; if nothing at all (frame or pong) comes for another {@code silence}, it is given up and
 * made again, because a half-open connection never ends by itself. A connection that fails, closes
 * or errs is made again after a backoff that doubles up to a cap, and starts over after a
 * connection that was healthy (it carried a frame or lived past {@code silence}).
 *
 * <p>Thread-safe. Callbacks run on the HTTP client's threads and timers on the {@link DoorClock}'s.
 */
public abstract sealed class WebSocketSource implements AutoCloseable
    permits JetstreamSource, FirehoseSource {
  private final Logger log = LoggerFactory.getLogger(getClass());
  private final String name;
  private final DoorMatcher matcher;
  private final DoorbellSink sink;
  private final DoorClock clock;
  private final SourceTimings timings;
  private final HttpClient http;
  private final Object lock = new Object();
  private final AtomicInteger connections = new AtomicInteger();
  private Connection current;
  private boolean started;
  private boolean closed;
  private Duration backoff;

  /**
   * The longest message taken, in bytes (characters, for text): Jetstream's frames are a few
   * kilobytes and a firehose commit carries at most a couple of megabytes of blocks, so a message
   * past this is hostile or broken, and holding it would fill the heap.
   */
  static final int MAX_MESSAGE_CHARS = 8 << 20;

  private DoorClock.Cancellable reconnect;

  WebSocketSource(
      String name, DoorMatcher matcher, DoorbellSink sink, DoorClock clock, SourceTimings timings) {
    this.name = name;
    this.matcher = matcher;
    this.sink = sink;
    this.clock = clock;
    this.timings = timings;
    this.backoff = timings.firstBackoff();
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  /** The address to connect to now (it may depend on what is watched now). */
  abstract URI uri();

  /** The record changes in one whole text message. */
  abstract List<RecordChange> changes(String text) throws GiveUp;

  /** The record changes in one whole binary message. */
  abstract List<RecordChange> changes(byte[] bytes) throws GiveUp;

  /** Thrown by a parser when the server said the connection is no good (an error frame). */
  static final class GiveUp extends Exception {
    GiveUp(String message) {
      super(message);
    }
  }

  /** The matcher rings are decided by. */
  DoorMatcher matcher() {
    return matcher;
  }

  /** Connects, in the background. Calling it again does nothing. */
  public void start() {
    synchronized (lock) {
      if (started || closed) {
        return;
      }
      started = true;
    }
    connect();
  }

  /** How many connections have been made (opened) so far. */
  public int connections() {
    return connections.get();
  }

  /** Whether a connection is open now. */
  public boolean connected() {
    synchronized (lock) {
      return current != null && current.ws != null && !current.done;
    }
  }

  /** Closes the connection and stops reconnecting. Idempotent. */
  @Override
  public void close() {
    Connection open;
    synchronized (lock) {
      closed = true;
      open = current;
      current = null;
      if (reconnect != null) {
        reconnect.cancel();
      }
    }
    if (open != null) {
      open.end();
    }
  }

  /** Sends a text message on the open connection, if there is one; returns whether it was sent. */
  boolean send(String text) {
    Connection open;
    synchronized (lock) {
      open = current;
    }
    WebSocket ws = open == null ? null : open.ws;
    if (ws == null || open.done) {
      return false;
    }
    ws.sendText(text, true);
    return true;
  }

  private void connect() {
    Connection attempt = new Connection();
    synchronized (lock) {
      if (closed) {
        return;
      }
      current = attempt;
    }
    URI uri = uri();
    log.debug("{} connecting to {}", name, uri);
    http.newWebSocketBuilder()
        .connectTimeout(timings.connectTimeout())
        .buildAsync(uri, attempt)
        .whenComplete(
            (ws, failure) -> {
              if (failure != null) {
                attempt.lost("could not connect to " + uri + ": " + cause(failure), false);
              }
            });
  }

  private void lost(Connection connection, String why, boolean healthy) {
    Duration delay;
    synchronized (lock) {
      if (closed || current != connection) {
        return;
      }
      current = null;
      if (healthy) {
        backoff = timings.firstBackoff();
      }
      delay = backoff;
      Duration doubled = backoff.multipliedBy(2);
      backoff = doubled.compareTo(timings.maxBackoff()) > 0 ? timings.maxBackoff() : doubled;
      reconnect = clock.schedule(delay, this::connect);
    }
    log.warn("{} connection lost: {}; connecting again in {} ms", name, why, delay.toMillis());
  }

  private void ring(List<RecordChange> changes) {
    for (RecordChange change : changes) {
      for (RepoId repo : matcher.match(change)) {
        sink.ring(repo, Doorbell.frame(change.collection()));
      }
    }
  }

  private static String cause(Throwable failure) {
    Throwable root =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return root.toString();
  }

  /** One connection: its listener, its silence watch and its partial messages. */
  private final class Connection implements WebSocket.Listener {
    private volatile WebSocket ws;
    private volatile boolean done;
    private volatile long lastHeard;
    private volatile boolean heardFrame;
    private long openedAt;
    private long pingAt;
    private boolean pinging;
    private DoorClock.Cancellable watch;
    private final StringBuilder text = new StringBuilder();
    private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

    @Override
    public void onOpen(WebSocket webSocket) {
      synchronized (lock) {
        if (closed || current != this) {
          webSocket.abort();
          return;
        }
      }
      long now = clock.nanoTime();
      synchronized (this) {
        ws = webSocket;
        openedAt = now;
        lastHeard = now;
        watch = clock.schedule(timings.silence(), this::watch);
      }
      int number = connections.incrementAndGet();
      log.info("{} connected (connection #{}); ringing every door", name, number);
      webSocket.request(1);
      sink.ringAll(Doorbell.connect(name));
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      heard(true);
      if (text.length() + data.length() > MAX_MESSAGE_CHARS) {
        tooBig(webSocket);
        return null;
      }
      text.append(data);
      if (last) {
        String whole = text.toString();
        text.setLength(0);
        handle(() -> changes(whole));
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
      heard(true);
      if ((long) binary.size() + data.remaining() > MAX_MESSAGE_CHARS) {
        tooBig(webSocket);
        return null;
      }
      byte[] part = new byte[data.remaining()];
      data.get(part);
      binary.writeBytes(part);
      if (last) {
        byte[] whole = binary.toByteArray();
        binary.reset();
        handle(() -> changes(whole));
      }
      webSocket.request(1);
      return null;
    }

    /**
     * Gives up a connection whose message runs past the limit: what it held is dropped, and the
     * connection made again rings every door, so nothing the message may have said is lost.
     */
    private void tooBig(WebSocket webSocket) {
      text.setLength(0);
      binary.reset();
      log.warn(
          "{} sent a message over {} bytes; dropping the connection, which rings every door again",
          name,
          MAX_MESSAGE_CHARS);
      webSocket.abort();
    }

    @Override
    public CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
      // The JDK answers the ping with a pong itself.
      heard(false);
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
      heard(false);
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      lost(
          "closed by the server (" + statusCode + (reason.isEmpty() ? "" : " " + reason) + ")",
          healthy());
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      lost("failed: " + cause(error), healthy());
    }

    private interface Parse {
      List<RecordChange> run() throws GiveUp;
    }

    private void handle(Parse parse) {
      try {
        ring(parse.run());
      } catch (GiveUp e) {
        lost(e.getMessage(), healthy());
      } catch (IllegalArgumentException e) {
        // One bad frame (forged, truncated, a new format) must not cost the connection.
        log.warn("{} frame skipped: {}", name, e.getMessage());
      }
    }

    private void heard(boolean frame) {
      lastHeard = clock.nanoTime();
      if (frame) {
        heardFrame = true;
      }
    }

    private synchronized boolean healthy() {
      return heardFrame
          || (ws != null && clock.nanoTime() - openedAt >= timings.silence().toNanos());
    }

    private void watch() {
      long silence = timings.silence().toNanos();
      long next;
      synchronized (this) {
        if (done) {
          return;
        }
        long now = clock.nanoTime();
        if (pinging && lastHeard - pingAt > 0) {
          pinging = false;
        }
        if (!pinging) {
          long quiet = now - lastHeard;
          if (quiet >= silence) {
            pinging = true;
            pingAt = now;
            ws.sendPing(ByteBuffer.wrap(new byte[] {'k'}));
            log.debug("{} quiet for {} ms: ping", name, quiet / 1_000_000);
            next = silence;
          } else {
            next = silence - quiet;
          }
        } else if (now - pingAt >= silence) {
          next = -1;
        } else {
          next = silence - (now - pingAt);
        }
        if (next > 0) {
          watch = clock.schedule(Duration.ofNanos(next), this::watch);
        }
      }
      if (next < 0) {
        lost("silent for " + timings.silence().toMillis() * 2 + " ms, a ping unanswered", true);
      }
    }

    /** Ends this connection and, unless the source is closing, schedules the next. */
    private void lost(String why, boolean healthy) {
      if (!end()) {
        return;
      }
      WebSocketSource.this.lost(this, why, healthy);
    }

    /** Marks this connection done and drops it; returns false if it already was. */
    private boolean end() {
      WebSocket socket;
      synchronized (this) {
        if (done) {
          return false;
        }
        done = true;
        if (watch != null) {
          watch.cancel();
        }
        socket = ws;
      }
      if (socket != null) {
        socket.abort();
      }
      return true;
    }
  }
}
