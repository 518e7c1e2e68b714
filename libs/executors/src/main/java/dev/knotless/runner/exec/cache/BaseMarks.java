package dev.knotless.runner.exec.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The marks of bases a pull made on a {@code --pulls-only} runner ({@code marks.json} under the
 * cache directory): each such base is marked with the default branch's generation at the tip the
 * pull merged with, and a run merged with an older tip does not promote over it, so a base never
 * goes back to an older default branch. A base a push made has no mark. Guarded by the store's
 * lock; written aside, then renamed, so a crash leaves the old file or the new one whole.
 */
final class BaseMarks {

  private static final Logger LOG = LoggerFactory.getLogger(BaseMarks.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final Map<String, Long> marks = new TreeMap<>();

  BaseMarks(Path file) {
    this.file = file;
    try {
      JsonNode root = JSON.readTree(Files.readAllBytes(file));
      if (root != null && root.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> it = root.fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          if (e.getValue().canConvertToLong() && e.getValue().asLong() >= 0) {
            marks.put(e.getKey(), e.getValue().asLong());
          }
        }
      }
    } catch (NoSuchFileException e) {
      // No pull has made a base here yet.
    } catch (IOException e) {
      // A mark lost lets one older pull promote once; it holds nothing else back.
      LOG.warn("could not read the caches' marks {}, starting without: {}", file, e.toString());
    }
  }

  /** The mark of base {@code name}, or -1 when it has none. */
  long of(String name) {
    return marks.getOrDefault(name, -1L);
  }

  /** Whether a run merged at generation {@code mark} may not promote over base {@code name}. */
  boolean refuses(String name, long mark) {
    return mark >= 0 && mark < of(name);
  }

  /** Marks base {@code name} with {@code mark}, or clears its mark when it is below 0. */
  void set(String name, long mark) throws IOException {
    Long was = mark < 0 ? marks.remove(name) : marks.put(name, mark);
    if (was == null ? mark >= 0 : was != mark) {
      write();
    }
  }

  /** Forgets the marks of the bases {@code name} starts with {@code prefix}. */
  void removeStartingWith(String prefix) {
    if (marks.keySet().removeIf(n -> n.startsWith(prefix))) {
      try {
        write();
      } catch (IOException e) {
        LOG.warn("could not write the caches' marks {}: {}", file, e.toString());
      }
    }
  }

  private void write() throws IOException {
    ObjectNode root = JSON.createObjectNode();
    marks.forEach(root::put);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
