package dev.knotless.storage;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Reads one repository's key range of a collection from a PDS that lists keys highest first and
 * pages strictly below the cursor. Thread-safe if the page source is.
 */
public final class RangeScanner {
  /** The page size every scan asks for. */
  public static final int PAGE = 100;

  /** Lists pages of one collection, {@link #PAGE} records each. */
  @FunctionalInterface
  public interface PageSource {
    /** One page below {@code cursor} (exclusive), highest key first. */
    RecordPage below(String cursor) throws IOException;

    /**
     * One page above {@code cursor} (exclusive), lowest key first; empty when the source cannot
     * list upward, and then scans read downward only.
     */
    default Optional<RecordPage> above(String cursor) throws IOException {
      return Optional.empty();
    }
  }

  private RangeScanner() {}

  /** Reads the whole range page after page, starting from {@code <key>/}. */
  public static List<Record> scan(PageSource source, String key) throws IOException {
    String prefix = Keys.prefix(key);
    List<Record> out = new ArrayList<>();
    String cursor = Keys.scanStart(key);
    while (true) {
      RecordPage page = source.below(cursor);
      for (Record r : page.records()) {
        if (!r.rkey().startsWith(prefix)) {
          return out;
        }
        out.add(r);
      }
      if (page.records().size() < PAGE) {
        return out;
      }
      cursor = page.records().get(page.records().size() - 1).rkey();
    }
  }

  /**
   * Reads the range: the first page alone, then, if it was full, the rest from both ends ({@link
   * #finishSplit}). The result is in descending key order.
   */
  public static List<Record> scanSplit(PageSource source, String key, Executor executor)
      throws IOException {
    String prefix = Keys.prefix(key);
    RecordPage first = source.below(Keys.scanStart(key));
    List<Record> out = new ArrayList<>();
    for (Record r : first.records()) {
      if (!r.rkey().startsWith(prefix)) {
        return out;
      }
      out.add(r);
    }
    if (first.records().size() < PAGE) {
      return out;
    }
    return finishSplit(source, key, out, executor);
  }

  /**
   * Continues a scan whose first page, already read and all in range, is {@code firstPage}: the
   * keys below it in gaps read from both ends ({@link TwoEndedKeyScan}), as many as {@link
   * KeyRanges#gapsFor} plans. Those read in one round about the pages a plain scan reads one after
   * another, plus one per gap where its ends meet.
   */
  public static List<Record> finishSplit(
      PageSource source, String key, List<Record> firstPage, Executor executor) throws IOException {
    String last = firstPage.get(firstPage.size() - 1).rkey();
    int gaps = KeyRanges.gapsFor(key, last);
    TwoEndedKeyScan scan =
        new TwoEndedKeyScan(
            source, key, last, KeyRanges.seeds(key, last, gaps), firstPage.size(), executor);
    List<Record> out = new ArrayList<>(firstPage);
    out.addAll(scan.run());
    if (Trace.on()) {
      Trace.mark(
          String.format(
              "refs past the first page: about %.0f (%d pages one after another): %d gaps,"
                  + " %d requests in %d rounds",
              KeyRanges.keysLeft(key, last),
              KeyRanges.pagesLeft(key, last),
              gaps,
              scan.requests(),
              scan.rounds()));
    }
    return out;
  }

  /** Waits for a future, unwrapping the I/O failure it ended with. */
  public static <T> T join(CompletableFuture<T> f) throws IOException {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
