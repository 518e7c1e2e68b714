package dev.knotless.storage;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
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

  /** Lists one descending page of a collection below {@code cursor}, {@link #PAGE} records. */
  @FunctionalInterface
  public interface PageSource {
    RecordPage below(String cursor) throws IOException;
  }

  private RangeScanner() {}

  /** Reads the whole range page after page, starting from {@code <key>/}. */
  public static List<Record> scan(PageSource source, String key) throws IOException {
    return scanRange(source, Keys.prefix(key), new KeyRanges.Range(Keys.scanStart(key), null));
  }

  /**
   * Reads the range: the first page alone, then, if it was full, the rest in up to eight ranges
   * side by side on {@code executor}. The result is in descending key order.
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

  /** Continues a scan whose first page, already read and all in range, is {@code firstPage}. */
  public static List<Record> finishSplit(
      PageSource source, String key, List<Record> firstPage, Executor executor) throws IOException {
    return finishSplit(source, key, firstPage, executor, Pace.UNKNOWN);
  }

  /**
   * How long the first round trip took: a small request's (the repo record's) and the first page's,
   * in nanoseconds, each 0 when not measured.
   */
  public record Pace(long smallNanos, long pageNanos) {
    /** Nothing measured: the ranges are read side by side. */
    public static final Pace UNKNOWN = new Pace(0, 0);

    /**
     * Whether {@code ranges} requests side by side are expected to end sooner than {@code pages}
     * one after another. Side by side, they save the link's wait (about a small request's time) on
     * all but one page. What they add is more requests, and on a PDS busy with them at once each
     * added request can cost as long as a page took: the work of the PDS and of both ends is not
     * saved by sending at once. So they pay when {@code (ranges - pages) × page <= (pages - 1) ×
     * small}. Fewer ranges than pages always pay; on a link with almost no wait, more never do.
     */
    public boolean rangesPay(int ranges, int pages) {
      if (ranges <= pages || smallNanos <= 0 || pageNanos <= 0) {
        return true;
      }
      return (double) (ranges - pages) * pageNanos <= (double) (pages - 1) * smallNanos;
    }
  }

  /**
   * Continues a scan whose first page, already read and all in range, is {@code firstPage}: in
   * ranges side by side, or, when {@code pace} says those would not end sooner, page after page.
   */
  public static List<Record> finishSplit(
      PageSource source, String key, List<Record> firstPage, Executor executor, Pace pace)
      throws IOException {
    List<Record> out = new ArrayList<>(firstPage);
    String last = firstPage.get(firstPage.size() - 1).rkey();
    List<KeyRanges.Range> ranges = KeyRanges.after(key, last);
    int pages = KeyRanges.pagesLeft(key, last);
    boolean pay = pace.rangesPay(ranges.size(), pages);
    if (Trace.on()) {
      Trace.mark(
          String.format(
              "refs past the first page: %d ranges or %d pages; repo record %.1f ms, page %.1f ms: %s",
              ranges.size(),
              pages,
              pace.smallNanos() / 1e6,
              pace.pageNanos() / 1e6,
              pay ? "ranges" : "pages"));
    }
    if (ranges.size() > 1 && !pay) {
      ranges = List.of(new KeyRanges.Range(last, null));
    }
    if (ranges.size() == 1) {
      out.addAll(scanRange(source, Keys.prefix(key), ranges.get(0)));
      return out;
    }
    List<CompletableFuture<List<Record>>> parts = new ArrayList<>();
    for (KeyRanges.Range range : ranges) {
      parts.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return scanRange(source, Keys.prefix(key), range);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              executor));
    }
    for (CompletableFuture<List<Record>> part : parts) {
      out.addAll(join(part));
    }
    return out;
  }

  static List<Record> scanRange(PageSource source, String prefix, KeyRanges.Range range)
      throws IOException {
    List<Record> out = new ArrayList<>();
    String cursor = range.cursor();
    while (true) {
      RecordPage page = source.below(cursor);
      for (Record r : page.records()) {
        if (!range.holds(prefix, r.rkey())) {
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
