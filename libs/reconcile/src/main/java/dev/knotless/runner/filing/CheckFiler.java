package dev.knotless.runner.filing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files check records in the runner's own account: each write retried as {@link WriteRetry} says,
 * logs and outputs uploaded as blobs, and the checks a stopped runner left behind ended.
 * Thread-safe.
 */
public final class CheckFiler {

  /** What a check left queued or running by a runner that stopped is ended with. */
  public static final String STALE_NOTE =
      "the runner stopped before this run started or finished; knotless rerun runs it again";

  /**
   * Whether {@code c} was ended for want of a runner to finish it ({@link #STALE_NOTE}): no verdict
   * on what it checks, as a cancelled check is not.
   */
  public static boolean endedUnfinished(CheckRecord c) {
    return c.status() == CheckStatus.ERROR && STALE_NOTE.equals(c.note());
  }

  /** How many output blobs upload at once. */
  public static final int OUTPUT_UPLOADS_AT_ONCE = 4;

  private static final Logger LOG = LoggerFactory.getLogger(CheckFiler.class);

  private final RetryingWrites writes;
  private final SpaceFiling spaces = new SpaceFiling();

  public CheckFiler(RetryingWrites writes) {
    this.writes = writes;
  }

  /** Private repositories' checks, filed into the runner's repo in each one's space. */
  public SpaceFiling spaces() {
    return spaces;
  }

  /** The runner's DID. */
  public String runnerDid() {
    return writes.did();
  }

  /** Files (or re-files) the check under its key. */
  public void file(String rkey, CheckRecord check) throws XrpcException {
    file(rkey, check, null);
  }

  /**
   * As {@link #file}, running {@code sent} (if not null) once the request has gone to the
   * connection, before its reply.
   */
  public void file(String rkey, CheckRecord check, Runnable sent) throws XrpcException {
    var space = spaces.spaceOf(rkey);
    if (space != null) {
      writes.retrying(
          "space putRecord " + rkey, () -> SpaceFiling.put(space, rkey, check.toJson()));
      if (sent != null) {
        sent.run();
      }
      return;
    }
    writes.put(
        CheckRecord.COLLECTION, rkey, check.toJson(), dev.knotless.atproto.Swap.none(), sent);
  }

  /**
   * Files the check under its key only over the record at {@code cid}: a write that must land after
   * one still on its way.
   *
   * @throws XrpcException of kind {@code INVALID_SWAP} when the record is not at {@code cid} (yet)
   */
  public void fileOver(String rkey, String cid, CheckRecord check) throws XrpcException {
    var space = spaces.spaceOf(rkey);
    if (space != null) {
      // A space's putRecord has no swap: the write lands as it comes.
      writes.retrying(
          "space putRecord " + rkey, () -> SpaceFiling.put(space, rkey, check.toJson()));
      return;
    }
    writes.put(
        CheckRecord.COLLECTION, rkey, check.toJson(), dev.knotless.atproto.Swap.cid(cid), null);
  }

  /** Uploads a run's log. */
  public BlobRef uploadLog(byte[] log) throws XrpcException {
    return writes.upload(log, "text/plain; charset=utf-8");
  }

  /** Uploads the log of the check under {@code rkey}: into the space, for a private repository. */
  public BlobRef uploadLog(String rkey, byte[] log) throws XrpcException {
    var space = spaces.spaceOf(rkey);
    return space != null
        ? writes.retrying(
            "space uploadBlob", () -> SpaceFiling.upload(space, log, "text/plain; charset=utf-8"))
        : uploadLog(log);
  }

  /**
   * Uploads a run's output images as {@link #uploadOutputBlobs} does.
   *
   * @return the check's {@code outputs} entries, in the order given
   */
  public List<JsonNode> uploadOutputs(List<NamedBytes> left) throws XrpcException {
    return uploadOutputs(null, left);
  }

  /**
   * As {@link #uploadOutputs(List)}, for the check under {@code rkey}: a private repository's are
   * uploaded one at a time into its space.
   */
  public List<JsonNode> uploadOutputs(String rkey, List<NamedBytes> left) throws XrpcException {
    var space = rkey == null ? null : spaces.spaceOf(rkey);
    List<JsonNode> out = new ArrayList<>();
    if (space != null) {
      for (NamedBytes f : left) {
        if (dev.knotless.runner.exec.OutputFiles.isImage(f.name())) {
          BlobRef b =
              writes.retrying(
                  "space uploadBlob",
                  () -> SpaceFiling.upload(space, f.bytes(), mimeType(f.name())));
          out.add(CheckRecord.imageOutput(f.name(), b));
        }
      }
      return out;
    }
    for (UploadedOutput o : uploadOutputBlobs(left)) {
      out.add(CheckRecord.imageOutput(o.name(), o.image()));
    }
    return out;
  }

  /**
   * Uploads a run's output images, four at a time; files with the same bytes become one blob. Files
   * that are not images (by their extension) are left out.
   *
   * @return each image uploaded with its blob, in the order given
   */
  public List<UploadedOutput> uploadOutputBlobs(List<NamedBytes> left) throws XrpcException {
    // A check's outputs are images (the lexicon's imageOutput); other files are passed over.
    List<NamedBytes> files = new ArrayList<>();
    for (NamedBytes f : left) {
      if (dev.knotless.runner.exec.OutputFiles.isImage(f.name())) {
        files.add(f);
      } else {
        LOG.info("output {} is not an image (by its name), so it is not uploaded", f.name());
      }
    }
    Map<String, NamedBytes> byDigest = new LinkedHashMap<>();
    for (NamedBytes f : files) {
      byDigest.putIfAbsent(digest(f.bytes()), f);
    }
    Map<String, BlobRef> blobs = new HashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(OUTPUT_UPLOADS_AT_ONCE);
    try {
      Map<String, Future<BlobRef>> pending = new LinkedHashMap<>();
      for (Map.Entry<String, NamedBytes> e : byDigest.entrySet()) {
        NamedBytes f = e.getValue();
        pending.put(e.getKey(), pool.submit(() -> writes.upload(f.bytes(), mimeType(f.name()))));
      }
      for (Map.Entry<String, Future<BlobRef>> e : pending.entrySet()) {
        blobs.put(e.getKey(), await(e.getValue()));
      }
    } finally {
      pool.shutdownNow();
    }
    List<UploadedOutput> out = new ArrayList<>();
    for (NamedBytes f : files) {
      out.add(new UploadedOutput(f.name(), blobs.get(digest(f.bytes()))));
    }
    return out;
  }

  /**
   * As {@link #uploadOutputBlobs(List)}, for the check under {@code rkey}: a private repository's
   * images go into its space, one at a time; one whose space this filer has no route to is refused,
   * so nothing of it reaches the runner's public account.
   */
  public List<UploadedOutput> uploadOutputBlobs(
      String rkey, boolean privateRepo, List<NamedBytes> left) throws java.io.IOException {
    var space = spaces.spaceOf(rkey);
    if (space == null) {
      if (privateRepo) {
        throw new java.io.IOException(
            "the repository is private and its space is not known here: not uploaded");
      }
      return uploadOutputBlobs(left);
    }
    List<UploadedOutput> out = new ArrayList<>();
    for (NamedBytes f : left) {
      if (dev.knotless.runner.exec.OutputFiles.isImage(f.name())) {
        BlobRef b =
            writes.retrying(
                "space uploadBlob", () -> SpaceFiling.upload(space, f.bytes(), mimeType(f.name())));
        out.add(new UploadedOutput(f.name(), b));
      }
    }
    return out;
  }

  /** A file a run left, by name. */
  public record NamedBytes(String name, byte[] bytes) {}

  /** An image a run left, uploaded: its name and its blob. */
  public record UploadedOutput(String name, BlobRef image) {}

  /**
   * Ends as error every check under {@code prefix} that this account left queued or running.
   *
   * @return how many were ended
   */
  public int endStale(String prefix, Instant now) throws XrpcException {
    return endStale(list(prefix), now);
  }

  /**
   * Ends as error every check of {@code checks} (records of this account's, as {@link #list} gives
   * them) left queued or running.
   *
   * @return how many were ended
   */
  public int endStale(List<Record> checks, Instant now) throws XrpcException {
    int ended = 0;
    for (Record r : checks) {
      CheckRecord c;
      try {
        c = CheckRecord.fromJson(r.value());
      } catch (IllegalArgumentException e) {
        LOG.warn("check {} does not parse, left as it is: {}", r.uri(), e.getMessage());
        continue;
      }
      if (c.status().ended()) {
        continue;
      }
      List<StepResult> steps = new ArrayList<>();
      for (StepResult s : c.steps()) {
        steps.add(
            s.endedAt() != null
                ? s
                : new StepResult(s.name(), StepResult.Status.CANCELLED, s.startedAt(), null, null));
      }
      file(r.rkey(), c.ended(CheckStatus.ERROR, now, steps, STALE_NOTE));
      ended++;
    }
    return ended;
  }

  /** The AT-URI of this account's check under {@code rkey}. */
  public String uri(String rkey) {
    return "at://" + writes.did() + "/" + CheckRecord.COLLECTION + "/" + rkey;
  }

  /**
   * This account's check at {@code uri} as it reads now, or empty when there is none.
   *
   * @throws java.io.IOException when it cannot be read, or is not a check
   */
  public java.util.Optional<CheckRecord> read(String uri) throws java.io.IOException {
    String prefix = "at://" + writes.did() + "/" + CheckRecord.COLLECTION + "/";
    if (!uri.startsWith(prefix)) {
      return java.util.Optional.empty();
    }
    java.util.Optional<Record> r =
        writes
            .client()
            .findRecord(writes.did(), CheckRecord.COLLECTION, uri.substring(prefix.length()));
    if (r.isEmpty()) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(CheckRecord.fromJson(r.get().value()));
    } catch (IllegalArgumentException e) {
      throw new java.io.IOException("check " + uri + " does not parse: " + e.getMessage(), e);
    }
  }

  /** The bytes of a blob this account uploaded (a check's log). */
  public byte[] blob(BlobRef ref) throws XrpcException {
    return writes.client().getBlob(writes.did(), ref.cid());
  }

  /** Every check of this account whose key starts with {@code prefix}, newest key first. */
  public List<Record> list(String prefix) throws XrpcException {
    var space = prefix.isEmpty() ? null : spaces.spaceOf(prefix);
    if (space != null) {
      return SpaceFiling.list(space, prefix);
    }
    return writes.client().listPrefixed(writes.did(), CheckRecord.COLLECTION, prefix);
  }

  /**
   * Every check of this account, in one listing, by the prefix of the repository each is of ({@link
   * dev.knotless.runner.check.CheckKeys#repoPrefix}): for a runner watching many repositories,
   * fewer pages than a listing per repository while pruning keeps the checks few.
   */
  public Map<String, List<Record>> listByRepo() throws XrpcException {
    Map<String, List<Record>> byPrefix = new java.util.HashMap<>();
    for (Record r : list("")) {
      // <owner hash>.<repo key>.<...>: the first two parts name the repository.
      int first = r.rkey().indexOf('.');
      int second = first < 0 ? -1 : r.rkey().indexOf('.', first + 1);
      if (second > 0) {
        byPrefix.computeIfAbsent(r.rkey().substring(0, second + 1), k -> new ArrayList<>()).add(r);
      }
    }
    return byPrefix;
  }

  /** Deletes checks by key, in applyWrites of 200. */
  public void delete(List<String> rkeys) throws XrpcException {
    if (spaces.any() && !rkeys.isEmpty() && spaces.spaceOf(rkeys.get(0)) != null) {
      // One repository's keys at a time, as the pruner and deletion ask.
      SpaceFiling.delete(spaces.spaceOf(rkeys.get(0)), rkeys);
      return;
    }
    for (int i = 0; i < rkeys.size(); i += 200) {
      List<Write> batch = new ArrayList<>();
      for (String k : rkeys.subList(i, Math.min(rkeys.size(), i + 200))) {
        batch.add(Write.delete(CheckRecord.COLLECTION, k));
      }
      writes.apply(batch);
    }
  }

  private static BlobRef await(Future<BlobRef> f) throws XrpcException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw XrpcException.noStatus("com.atproto.repo.uploadBlob", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof XrpcException x) {
        throw x;
      }
      throw new IllegalStateException("output upload failed", e.getCause());
    }
  }

  private static String digest(byte[] bytes) {
    return dev.knotless.atproto.Hashes.base32(dev.knotless.atproto.Hashes.sha256(bytes));
  }

  static String mimeType(String name) {
    return dev.knotless.runner.exec.OutputFiles.mimeType(name);
  }
}
