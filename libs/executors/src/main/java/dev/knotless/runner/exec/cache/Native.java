package dev.knotless.runner.exec.cache;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Platform;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The few Linux calls the caches need and Java lacks, through JNA on libc: {@code mount(2)} of an
 * overlay, {@code umount2(2)}, and the {@code trusted.*} extended attributes overlayfs marks opaque
 * directories with (Java's own attribute view reaches only {@code user.*}). No command is started:
 * the runner's image has neither {@code mount} nor {@code getfattr}. Needs root (CAP_SYS_ADMIN).
 * Thread-safe (no state).
 */
final class Native {

  /** umount2's flag for a lazy unmount: detached now, freed once nothing uses it. */
  static final int MNT_DETACH = 2;

  static final int EBUSY = 16;
  static final int EINVAL = 22;
  static final int ENOENT = 2;
  static final int ENODATA = 61;

  private static final int S_IFCHR = 0020000;

  /** The libc functions used. */
  interface LibC extends Library {
    int mount(String source, String target, String type, long flags, String data)
        throws LastErrorException;

    int umount2(String target, int flags) throws LastErrorException;

    long lgetxattr(String path, String name, byte[] value, long size) throws LastErrorException;

    int lsetxattr(String path, String name, byte[] value, long size, int flags)
        throws LastErrorException;

    int lremovexattr(String path, String name) throws LastErrorException;

    int mknod(String path, int mode, long dev) throws LastErrorException;
  }

  private static final LibC LIBC = com.sun.jna.Native.load(Platform.C_LIBRARY_NAME, LibC.class);

  private Native() {}

  /** Mounts an overlay at {@code target} with {@code options} (lowerdir, upperdir, workdir). */
  static void mountOverlay(Path target, String options) throws IOException {
    try {
      LIBC.mount("knotless-cache", target.toString(), "overlay", 0, options);
    } catch (LastErrorException e) {
      throw new IOException(
          "mount of an overlay at " + target + " failed with errno " + e.getErrorCode(), e);
    }
  }

  /**
   * Unmounts {@code target}. Returns false when nothing is mounted there (EINVAL or ENOENT).
   *
   * @throws IOException when the mount is busy (EBUSY) or the kernel refuses otherwise
   */
  static boolean unmount(Path target, int flags) throws IOException {
    try {
      LIBC.umount2(target.toString(), flags);
      return true;
    } catch (LastErrorException e) {
      if (e.getErrorCode() == EINVAL || e.getErrorCode() == ENOENT) {
        return false;
      }
      throw new IOException("unmount of " + target + " failed with errno " + e.getErrorCode(), e);
    }
  }

  /** The value of extended attribute {@code name} of {@code path} (not followed), or null. */
  static String xattr(Path path, String name) throws IOException {
    byte[] buf = new byte[256];
    try {
      long n = LIBC.lgetxattr(path.toString(), name, buf, buf.length);
      return new String(buf, 0, (int) n, StandardCharsets.UTF_8);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == ENODATA) {
        return null;
      }
      throw new IOException(
          "could not read " + name + " of " + path + ": errno " + e.getErrorCode(), e);
    }
  }

  /** Sets extended attribute {@code name} of {@code path} (not followed) to {@code value}. */
  static void setXattr(Path path, String name, String value) throws IOException {
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    try {
      LIBC.lsetxattr(path.toString(), name, v, v.length, 0);
    } catch (LastErrorException e) {
      throw new IOException(
          "could not set " + name + " of " + path + ": errno " + e.getErrorCode(), e);
    }
  }

  /** Removes extended attribute {@code name} of {@code path} if it has it. */
  static void removeXattr(Path path, String name) throws IOException {
    try {
      LIBC.lremovexattr(path.toString(), name);
    } catch (LastErrorException e) {
      if (e.getErrorCode() != ENODATA) {
        throw new IOException(
            "could not remove " + name + " of " + path + ": errno " + e.getErrorCode(), e);
      }
    }
  }

  /** Makes an overlayfs whiteout at {@code path}: a character device numbered 0/0. */
  static void whiteout(Path path) throws IOException {
    try {
      LIBC.mknod(path.toString(), S_IFCHR, 0);
    } catch (LastErrorException e) {
      throw new IOException(
          "could not make a whiteout at " + path + ": errno " + e.getErrorCode(), e);
    }
  }
}
