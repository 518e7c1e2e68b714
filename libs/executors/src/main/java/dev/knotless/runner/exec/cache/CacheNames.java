package dev.knotless.runner.exec.cache;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The names of caches' directories: each part hashed (the first 16 hex digits of SHA-256), so a
 * name holds no character a path or an overlay's mount options could trip on, and one repository's
 * caches share the first part. Stateless.
 */
final class CacheNames {

  private CacheNames() {}

  /** A cache's name: its repository, workflow and path, each hashed. */
  static String name(String repo, String workflow, String path) {
    return hash(repo) + "." + hash(workflow) + "." + hash(path);
  }

  static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
