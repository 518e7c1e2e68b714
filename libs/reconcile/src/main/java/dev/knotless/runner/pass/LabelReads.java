package dev.knotless.runner.pass;

import dev.knotless.storage.Threads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads the repositories a runner is told to watch, a few at a time, so one watching thousands does
 * not start one round trip at a time: the all-in-one's start and a reconciler's both read their
 * list through it. One that cannot be read (gone, private to the runner, a name that is not one) is
 * kept apart with the reason, so one bad name does not keep the runner from the rest. Stateless.
 */
public final class LabelReads {
  /** How many repositories are read at once. */
  public static final int AT_ONCE = 8;

  /** Reads one label; see {@link PdsAccess#read}. */
  @FunctionalInterface
  public interface Reader {
    Watched read(String label) throws IOException;
  }

  /**
   * What was read: the repositories, in the order their labels came, and the labels that could not
   * be, each with why.
   */
  public record Result(List<Watched> read, Map<String, String> failed) {}

  private LabelReads() {}

  /**
   * Reads every label, {@link #AT_ONCE} at a time.
   *
   * @throws IOException when a read fails with something other than an I/O error or a bad name (a
   *     bug, which should not pass as one unreadable repository), or the reads are interrupted
   */
  public static Result readAll(List<String> labels, Reader reader) throws IOException {
    ExecutorService pool = Executors.newFixedThreadPool(AT_ONCE, Threads.daemon("knotless-start"));
    try {
      List<Future<Watched>> reads = new ArrayList<>();
      for (String label : labels) {
        reads.add(pool.submit(() -> reader.read(label)));
      }
      List<Watched> read = new ArrayList<>();
      Map<String, String> failed = new LinkedHashMap<>();
      for (int i = 0; i < reads.size(); i++) {
        String label = labels.get(i);
        try {
          read.add(reads.get(i).get());
        } catch (ExecutionException e) {
          Throwable why = e.getCause();
          if (!(why instanceof IOException) && !(why instanceof IllegalArgumentException)) {
            throw new IOException(label + ": " + why, why);
          }
          failed.put(label, why.getMessage());
        }
      }
      return new Result(read, failed);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the watched repositories", e);
    } finally {
      pool.shutdownNow();
    }
  }
}
