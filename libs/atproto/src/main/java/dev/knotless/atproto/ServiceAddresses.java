package dev.knotless.atproto;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * Which servers the runner may reach for atproto: a PDS named by a DID document, the appview, the
 * PLC directory, a did:web host, a handle's {@code .well-known} host. Outside tests only {@code
 * https} to public addresses: a name that resolves to a loopback, link-local (cloud metadata lives
 * at 169.254.169.254), private, unique-local, shared (100.64/10), unspecified or multicast address
 * is refused, so a DID document cannot point the runner at its own network (SSRF).
 *
 * <p>The check runs right before each request, and every address a name has must pass, not only the
 * first. The connection itself is made to an address checked at that moment: an HTTP client built
 * with {@link #clientBuilder()} (or given {@link #pinning()} as its proxy) sends https through a
 * tunnel on this JVM's loopback ({@code PinnedTunnel}) that resolves the name once, checks every
 * address and connects to one of them. So a name that answers a public address to the check and a
 * private one a moment later (DNS rebinding) is not connected to the private one. Plain http, which
 * only loopback test servers are allowed, is not tunnelled.
 *
 * <p>{@link #allowingLoopback()} ({@code KNOTLESS_ALLOW_LOCAL_SERVICES=true}, or the system
 * property {@code knotless.allow-local-services=true} in a test JVM) also allows loopback servers,
 * over http or https: the test PDS, PLC directory and appview on 127.0.0.1. Other local ranges stay
 * refused. Immutable and thread-safe.
 */
public final class ServiceAddresses {
  /** The variable that allows loopback servers, for tests and local development. */
  public static final String ALLOW_LOCAL = "KNOTLESS_ALLOW_LOCAL_SERVICES";

  /** The system property of the same meaning, for tests run inside one JVM. */
  public static final String ALLOW_LOCAL_PROPERTY = "knotless.allow-local-services";

  private static final ServiceAddresses STRICT =
      new ServiceAddresses(false, InetAddress::getAllByName, Map.of());
  private static final ServiceAddresses LOOPBACK =
      new ServiceAddresses(true, InetAddress::getAllByName, Map.of());

  /** How a name becomes addresses: the JVM's resolver, or a test's. */
  @FunctionalInterface
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  private final boolean loopback;
  private final Resolver resolver;
  private final Map<String, InetSocketAddress> routes;
  private volatile PinnedTunnel tunnel;
  private volatile java.net.http.HttpClient client;

  private ServiceAddresses(
      boolean loopback, Resolver resolver, Map<String, InetSocketAddress> routes) {
    this.loopback = loopback;
    this.resolver = resolver;
    this.routes = routes;
  }

  /** The same rules, with names resolved by {@code resolver} (for tests). */
  public ServiceAddresses withResolver(Resolver resolver) {
    return new ServiceAddresses(loopback, resolver, routes);
  }

  /**
   * For tests only: the same rules, with https connections to the names in {@code routes} made to
   * the address and port given instead of what DNS answers and the URL's port. A handle has to be a
   * real domain name served on port 443, and a test's server is neither; this is how a test reaches
   * one by a handle such as {@code alice.example.test}. The routed address is checked as any other
   * (so a loopback one needs {@link #allowingLoopback()}), and plain http to a routed name is
   * refused, as it would bypass the tunnel. No setting or input reaches this: only code that calls
   * it.
   *
   * @param routes host names (any case) to where their https connections go
   */
  public ServiceAddresses routing(Map<String, InetSocketAddress> routes) {
    Map<String, InetSocketAddress> lower = new java.util.HashMap<>();
    routes.forEach(
        (host, to) -> {
          if (to.isUnresolved()) {
            throw new IllegalArgumentException("route for " + host + " has no address: " + to);
          }
          lower.put(host.toLowerCase(java.util.Locale.ROOT), to);
        });
    return new ServiceAddresses(loopback, resolver, Map.copyOf(lower));
  }

  /** Why a server was not reached. */
  public static final class Refused extends IOException {
    Refused(String message) {
      super(message);
    }
  }

  /** Only https to public addresses. */
  public static ServiceAddresses strict() {
    return STRICT;
  }

  /** As {@link #strict}, and loopback servers over http or https too. */
  public static ServiceAddresses allowingLoopback() {
    return LOOPBACK;
  }

  /** {@link #allowingLoopback} when {@code env} or the JVM's system properties ask for it. */
  public static ServiceAddresses fromEnvironment(Map<String, String> env) {
    boolean allow =
        "true".equalsIgnoreCase(env.getOrDefault(ALLOW_LOCAL, "").strip())
            || "true".equalsIgnoreCase(System.getProperty(ALLOW_LOCAL_PROPERTY, "").strip());
    return allow ? LOOPBACK : STRICT;
  }

  /**
   * Has {@link #client()} give this process a client on {@link java.net.HttpURLConnection} ({@code
   * BlockingHttpClient}) rather than the JDK's {@link java.net.http.HttpClient}, whose set-up costs
   * a process that makes a few requests and exits 80 to 100 ms. For the git helper and the owner's
   * commands; call before the first request.
   */
  public static void shortLivedProcess() {
    shortLived = true;
  }

  private static volatile boolean shortLived;

  /** The process's setting: {@link #fromEnvironment} of {@code System.getenv()}. */
  public static ServiceAddresses process() {
    return fromEnvironment(System.getenv());
  }

  /** Whether loopback servers are allowed. */
  public boolean allowsLoopback() {
    return loopback;
  }

  /**
   * Checks {@code uri} before a request: its scheme, then every address its host resolves to. A
   * name that does not resolve passes (the connection then fails on its own, naming it).
   *
   * @param what whose server it is, for the message ({@code "the PDS of did:plc:…"})
   * @throws Refused naming the address and why it is refused
   */
  public void check(URI uri, String what) throws Refused {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
    String host = uri.getHost();
    if (host == null || !(scheme.equals("https") || scheme.equals("http"))) {
      throw new Refused(what + " at " + uri + " is no http(s) address; refused");
    }
    if (scheme.equals("http") && route(host) != null) {
      throw new Refused(what + " at " + uri + " is plain http to a routed name; refused");
    }
    InetAddress[] addresses;
    try {
      addresses = addressesOf(host);
    } catch (UnknownHostException e) {
      addresses = new InetAddress[0];
    }
    boolean allLoopback = addresses.length > 0;
    for (InetAddress a : addresses) {
      refuseIfForbidden(a, what + " at " + uri);
      allLoopback &= a.isLoopbackAddress();
    }
    if (scheme.equals("http") && !(loopback && allLoopback)) {
      throw new Refused(
          what + " at " + uri + " is plain http; refused, only https is reached outside tests");
    }
  }

  /**
   * The address and port a connection to {@code host:port} goes to: the name resolved once, every
   * address it has checked, the first returned with {@code port} (or a test's route, see {@link
   * #routing}). The tunnel calls this at connect time.
   *
   * @throws Refused when an address the name has now is refused
   * @throws UnknownHostException when the name has no address
   */
  InetSocketAddress pin(String host, int port) throws Refused, UnknownHostException {
    InetSocketAddress routed = route(host);
    if (routed != null) {
      refuseIfForbidden(
          routed.getAddress(), "the server " + host + ":" + port + ", routed to " + routed + ",");
      return routed;
    }
    InetAddress[] addresses = resolver.resolve(host);
    if (addresses.length == 0) {
      throw new UnknownHostException(host);
    }
    for (InetAddress a : addresses) {
      refuseIfForbidden(a, "the server " + host + ":" + port + ", resolved again to connect,");
    }
    return new InetSocketAddress(addresses[0], port);
  }

  private InetSocketAddress route(String host) {
    return routes.isEmpty() ? null : routes.get(host.toLowerCase(java.util.Locale.ROOT));
  }

  private InetAddress[] addressesOf(String host) throws UnknownHostException {
    InetSocketAddress routed = route(host);
    return routed != null ? new InetAddress[] {routed.getAddress()} : resolver.resolve(host);
  }

  /**
   * A proxy selector that sends every https connection through this JVM's pinning tunnel, so it
   * goes to an address checked when it is made; plain http (loopback test servers only) goes
   * direct.
   */
  public java.net.ProxySelector pinning() {
    return new java.net.ProxySelector() {
      @Override
      public java.util.List<java.net.Proxy> select(URI uri) {
        if (!"https".equalsIgnoreCase(uri.getScheme())) {
          return java.util.List.of(java.net.Proxy.NO_PROXY);
        }
        return java.util.List.of(new java.net.Proxy(java.net.Proxy.Type.HTTP, tunnel().address()));
      }

      @Override
      public void connectFailed(URI uri, java.net.SocketAddress sa, IOException e) {
        // the client reports the failure itself
      }
    };
  }

  /**
   * An HTTP client builder whose connections go through {@link #pinning()}, with the JDK's TLS set
   * up at the first https connection rather than as the client is built ({@link LazyTls}).
   */
  public java.net.http.HttpClient.Builder clientBuilder() {
    return java.net.http.HttpClient.newBuilder()
        .proxy(pinning())
        .sslContext(LazyTls.context())
        .sslParameters(LazyTls.parameters());
  }

  /**
   * The one HTTP client every XRPC and identity request of this process makes through these
   * addresses: HTTP/1.1 (the reference PDS refuses h2c upgrades), no redirects followed, a 10 s
   * connect timeout. One client keeps one pool of connections and one selector thread, and costs
   * its set-up once: a short command used to build two, and the runner one per PDS client.
   */
  public java.net.http.HttpClient client() {
    java.net.http.HttpClient c = client;
    if (c == null) {
      synchronized (this) {
        c = client;
        if (c == null) {
          c =
              shortLived
                  ? new BlockingHttpClient(pinning(), java.time.Duration.ofSeconds(10))
                  : clientBuilder()
                      .version(java.net.http.HttpClient.Version.HTTP_1_1)
                      .connectTimeout(java.time.Duration.ofSeconds(10))
                      .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
                      .build();
          client = c;
        }
      }
    }
    return c;
  }

  private PinnedTunnel tunnel() {
    PinnedTunnel t = tunnel;
    if (t == null) {
      synchronized (this) {
        t = tunnel;
        if (t == null) {
          try {
            t = new PinnedTunnel(this);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException("the pinning tunnel could not listen", e);
          }
          tunnel = t;
        }
      }
    }
    return t;
  }

  private void refuseIfForbidden(InetAddress a, String whose) throws Refused {
    String why = forbidden(a);
    if (why != null && !(loopback && a.isLoopbackAddress())) {
      throw new Refused(
          whose
              + " resolves to "
              + a.getHostAddress()
              + ", "
              + why
              + "; only public addresses are reached"
              + (a.isLoopbackAddress() ? " (" + ALLOW_LOCAL + "=true allows loopback)" : ""));
    }
  }

  /** Why {@code a} is no public address, or null if it is one. */
  static String forbidden(InetAddress a) {
    if (a.isAnyLocalAddress()) {
      return "the unspecified address";
    }
    if (a.isLoopbackAddress()) {
      return "a loopback address";
    }
    if (a.isLinkLocalAddress()) {
      return "a link-local address (where cloud metadata services answer)";
    }
    if (a.isSiteLocalAddress()) {
      return "a private address";
    }
    if (a.isMulticastAddress()) {
      return "a multicast address";
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      if (first == 0) {
        return "an address of \"this network\" (0.0.0.0/8)";
      }
      if (first == 100 && (second & 0xc0) == 64) {
        return "a shared address (100.64.0.0/10, carrier-grade NAT and some metadata services)";
      }
      if (first == 192 && second == 0 && (b[2] & 0xff) == 0) {
        return "a protocol-assignment address (192.0.0.0/24)";
      }
      if (first == 198 && (second == 18 || second == 19)) {
        return "a benchmarking address (198.18.0.0/15)";
      }
      if (first >= 240) {
        return "a reserved address (240.0.0.0/4)";
      }
    } else if (a instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return "a unique-local address (fc00::/7)";
      }
      if (isMappedOrTranslated(b)) {
        try {
          InetAddress v4 = InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16));
          String why = forbidden(v4);
          return why == null ? null : why + " inside an IPv6 address";
        } catch (UnknownHostException e) {
          return "an address that cannot be read";
        }
      }
    }
    return null;
  }

  /** IPv4-compatible, IPv4-mapped (when not already unwrapped) or NAT64 (64:ff9b::/96). */
  private static boolean isMappedOrTranslated(byte[] b) {
    boolean nat64 =
        (b[0] & 0xff) == 0x00
            && (b[1] & 0xff) == 0x64
            && (b[2] & 0xff) == 0xff
            && b[3] == (byte) 0x9b;
    for (int i = 4; i < 12; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    if (nat64) {
      return true;
    }
    for (int i = 0; i < 4; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
