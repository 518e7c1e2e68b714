package dev.knotless.run.ingester.app;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The ingester's settings. */
@ConfigMapping(prefix = "knotless.ingester")
public interface IngesterConfig {
  /** The event source to follow: {@code jetstream} or {@code firehose}. */
  @WithDefault("jetstream")
  Source source();

  /** The Jetstream subscribe address (ws:// or wss://), used when the source is jetstream. */
  @WithDefault("wss://jetstream2.us-east.bsky.network/subscribe")
  URI jetstream();

  /** The PDS whose subscribeRepos to follow (http(s):// or ws(s)://); required for firehose. */
  Optional<URI> firehose();

  /**
   * A fixed list of watched repositories, comma-separated, each {@code <owner did>/<repo
   * key>=<name>}, for running the ingester alone (its own tests). Unset, the ingester takes the
   * watched repositories from PostgreSQL, where the reconcilers keep them: the chart never sets it.
   */
  Optional<List<String>> repos();

  /** As {@link #repos}, from a file, one entry a line, {@code #} comments; adds to repos. */
  Optional<Path> reposFile();

  /**
   * How often the watched repositories, and with {@link #pulls} their pulls' heads, are read again
   * from PostgreSQL.
   */
  @WithDefault("10s")
  Duration watchRefresh();

  /**
   * With the reconcilers' discovery on: a repository record written on the event stream for one not
   * watched rings a door keyed {@code <owner did>/<name>}, for a reconciler to look at.
   */
  @WithDefault("false")
  boolean discover();

  /**
   * With the reconcilers' pulls on (the chart's {@code pulls}): a pull or pull state record keyed
   * under a watched repository rings its door, and so does a ref moving in the head repository of
   * one of its open pulls, as the reconcilers publish them in PostgreSQL.
   */
  @WithDefault("false")
  boolean pulls();

  /**
   * Also a merge-queue record keyed under a watched repository rings its door, as the all-in-one's
   * {@code --queue}; needs {@link #pulls}. Turn it on with the reconcilers' {@code
   * knotless.reconciler.queue.enabled}, which lands the queue.
   */
  @WithDefault("false")
  boolean queue();

  /** How often every watched repository is rung regardless of frames. */
  @WithDefault("600s")
  Duration sweep();

  /** Quiet time before a ping, and again before the connection is given up and made anew. */
  @WithDefault("60s")
  Duration silence();

  /** The wait before reconnecting after a failure; it doubles with each failure in a row. */
  @WithDefault("1s")
  Duration firstBackoff();

  /** The cap on the reconnect wait. */
  @WithDefault("60s")
  Duration maxBackoff();

  /** How long one connection attempt may take. */
  @WithDefault("30s")
  Duration connectTimeout();

  /** The event sources the ingester can follow. */
  enum Source {
    JETSTREAM,
    FIREHOSE
  }

  /**
   * Where the Jetstream cursor is kept, so a restart resumes near where it stopped; unset reads
   * from now at every start (the first connection rings every door either way).
   */
  Optional<Path> cursorFile();
}
