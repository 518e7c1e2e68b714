package dev.knotless.runner.exec;

import java.util.Locale;

/**
 * Which files a run leaves in {@code KNOTLESS_RUN_OUTPUTS} become its check's outputs, and how many
 * and how much of them a run may keep. A check's outputs are images (the lexicon's imageOutput), so
 * other files are never read; each must fit in one blob of the PDS, whose limit is 5 MiB by
 * default; and a run's outputs together are bounded, since they are held in memory until the check
 * is filed. Stateless.
 */
public final class OutputFiles {

  /** The largest output kept: the reference PDS's default blob limit. */
  public static final long MAX_FILE_BYTES = 5L << 20;

  /** The most outputs one run keeps, in path order. */
  public static final int MAX_FILES = 16;

  /** The most bytes one run's outputs take together. */
  public static final long MAX_TOTAL_BYTES = 32L << 20;

  private OutputFiles() {}

  /**
   * Whether a file of {@code size} bytes is small enough that its bytes are read at all: a larger
   * one is left out by its size alone, so an executor that copies outputs out of its sandbox (a
   * pod's) need bring back only the size of such a file.
   */
  public static boolean withinFileLimit(long size) {
    return size <= MAX_FILE_BYTES;
  }

  /** The media type a file's name says, {@code application/octet-stream} for none we know. */
  public static String mimeType(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (n.endsWith(".png")) {
      return "image/png";
    }
    if (n.endsWith(".jpg") || n.endsWith(".jpeg")) {
      return "image/jpeg";
    }
    if (n.endsWith(".webp")) {
      return "image/webp";
    }
    if (n.endsWith(".gif")) {
      return "image/gif";
    }
    if (n.endsWith(".svg")) {
      return "image/svg+xml";
    }
    return "application/octet-stream";
  }

  /**
   * Whether {@code name} is a plain file name an output may have: not empty, and holding no {@code
   * /} or {@code \\}, no {@code ..}, and no line break or other control character, so that it can
   * neither point elsewhere nor forge a line where it is shown.
   */
  public static boolean isPlainName(String name) {
    if (name.isEmpty() || name.contains("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        return false;
      }
    }
    return true;
  }

  /** Whether a file of this name can be an output at all. */
  public static boolean isImage(String name) {
    return mimeType(name).startsWith("image/");
  }
}
