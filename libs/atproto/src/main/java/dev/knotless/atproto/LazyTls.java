package dev.knotless.atproto;

import java.security.KeyManagementException;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The JDK's default TLS, set up only when a connection first needs it.
 *
 * <p>A {@link java.net.http.HttpClient} asks for the default {@link SSLContext} as it is built,
 * which loads the trust store and the TLS provider: 0.1 to 0.3 s of a short command's start, paid
 * even when every server it talks to is plain http (a PDS on loopback, a test's). This context
 * stands in for the default one: the first engine or factory anybody asks of it makes the default
 * context (so its trust store, its protocols and its checks are the JDK's, as before, including any
 * {@code javax.net.ssl.*} settings), and everything is asked of that from then on.
 */
public final class LazyTls {
  private static final Provider PROVIDER =
      new Provider("knotless-lazy-tls", "1", "the JDK's default TLS, made on first use") {};
  // After PROVIDER, which it uses.
  private static final SSLContext CONTEXT = newContext();

  private LazyTls() {}

  /** The stand-in for {@link SSLContext#getDefault()}. */
  public static SSLContext context() {
    return CONTEXT;
  }

  /**
   * Parameters for a client built on {@link #context()}: empty, so each engine keeps the default
   * context's own protocols and cipher suites. A client given none would ask the context for its
   * defaults while being built, which is the very set-up this class puts off.
   */
  public static SSLParameters parameters() {
    return new SSLParameters();
  }

  /** A context of its own, not yet set up (tests; everything else shares {@link #context()}). */
  static SSLContext newContext() {
    return new LazyContext(new Spi());
  }

  /** Whether {@code context}, from {@link #newContext()}, has set up the JDK's TLS yet (tests). */
  static boolean started(SSLContext context) {
    return ((LazyContext) context).spi.delegate != null;
  }

  private static final class LazyContext extends SSLContext {
    private final Spi spi;

    LazyContext(Spi spi) {
      super(spi, PROVIDER, "Default");
      this.spi = spi;
    }
  }

  private static final class Spi extends SSLContextSpi {
    private volatile SSLContext delegate;

    private SSLContext tls() {
      SSLContext d = delegate;
      if (d == null) {
        synchronized (this) {
          d = delegate;
          if (d == null) {
            try {
              d = SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("no default TLS in this JDK: " + e.getMessage(), e);
            }
            delegate = d;
          }
        }
      }
      return d;
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random)
        throws KeyManagementException {
      throw new KeyManagementException("the default TLS context is set up by the JDK");
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      return tls().getSocketFactory();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      return tls().getServerSocketFactory();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return tls().createSSLEngine();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return tls().createSSLEngine(host, port);
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return tls().getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return tls().getClientSessionContext();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
      return tls().getDefaultSSLParameters();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
      return tls().getSupportedSSLParameters();
    }
  }
}
