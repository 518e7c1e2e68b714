package dev.knotless.runner.mask;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream that masks what passes through it before the stream under it sees it: a run's
 * log file is written through one. Bytes are passed on as soon as no secret can still cross them
 * ({@link Masker.Overflow#EMIT}), so at most {@link SecretMask#window()} bytes are held back,
 * however long the line; {@link #close} passes the rest on and closes the stream under it. Not
 * thread-safe.
 */
public final class MaskingOutputStream extends OutputStream {

  private final OutputStream out;
  private final Masker masker;
  private boolean closed;

  /** Masks with {@code mask} into {@code out}. */
  public MaskingOutputStream(OutputStream out, SecretMask mask) {
    this.out = out;
    this.masker = new Masker(mask, Masker.Overflow.EMIT);
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("the masking stream is closed");
    }
    byte[] masked = masker.write(b, off, len);
    if (masked.length > 0) {
      out.write(masked);
    }
  }

  /** Flushes what was passed on; the held-back bytes stay held until more come or on close. */
  @Override
  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      out.write(masker.finish());
    } finally {
      out.close();
    }
  }
}
