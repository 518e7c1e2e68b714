package dev.knotless.runner.workflow;

import dev.knotless.atproto.Hashes;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The workflow files parsed lately, by path and content, so a push that leaves its workflows alone
 * (most do) has them from here rather than parsed again: about half a millisecond a file on the way
 * from a push to its check running. A parse is pure and its result immutable, so a file of the same
 * path and bytes always parses the same. Bounded by the bytes of the files kept, the least recently
 * used going first. Thread-safe.
 */
final class ParsedFiles {

  /** What {@code WorkflowParser.parse} gives: a workflow, or the file's error. */
  interface Parse {
    Object parse(String path, byte[] content);
  }

  private final long maxBytes;
  private final Map<String, Kept> kept = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  private record Kept(Object parsed, int size) {}

  ParsedFiles(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** The file parsed: kept from before when its path and bytes were parsed lately. */
  Object get(String path, byte[] content, Parse parse) {
    String key = path + "\0" + HexFormat.of().formatHex(Hashes.sha256(content));
    synchronized (this) {
      Kept k = kept.get(key);
      if (k != null) {
        return k.parsed();
      }
    }
    Object parsed = parse.parse(path, content);
    if (content.length > maxBytes) {
      return parsed;
    }
    synchronized (this) {
      if (kept.putIfAbsent(key, new Kept(parsed, content.length)) == null) {
        bytes += content.length;
        var oldest = kept.entrySet().iterator();
        while (bytes > maxBytes && oldest.hasNext()) {
          bytes -= oldest.next().getValue().size();
          oldest.remove();
        }
      }
    }
    return parsed;
  }

  /** How many files are kept. */
  synchronized int size() {
    return kept.size();
  }
}
