package dev.knotless.atproto;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
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
 * <p>The check resolves the name through the JVM's address cache right before each request, and the
 * connection that follows reads its address from that same cache entry (held 30 s by default), so a
 * name that answers a public address to the check and a private one a moment later (DNS rebinding)
 * still connects to the address checked. Every address a name has must pass, not only the first.
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

  private static final ServiceAddresses STRICT = new ServiceAddresses(false);
  private static final ServiceAddresses LOOPBACK = new ServiceAddresses(true);

  private final boolean loopback;

  private ServiceAddresses(boolean loopback) {
    this.loopback = loopback;
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
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      addresses = new InetAddress[0];
    }
    boolean allLoopback = addresses.length > 0;
    for (InetAddress a : addresses) {
      String why = forbidden(a);
      if (why == null) {
        allLoopback = false;
        continue;
      }
      if (!(loopback && a.isLoopbackAddress())) {
        throw new Refused(
            what
                + " at "
                + uri
                + " resolves to "
                + a.getHostAddress()
                + ", "
                + why
                + "; only public addresses are reached"
                + (a.isLoopbackAddress() ? " (" + ALLOW_LOCAL + "=true allows loopback)" : ""));
      }
    }
    if (scheme.equals("http") && !(loopback && allLoopback)) {
      throw new Refused(
          what + " at " + uri + " is plain http; refused, only https is reached outside tests");
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
