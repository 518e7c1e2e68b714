package dev.knotless.atproto.identity;

import dev.knotless.atproto.ServiceAddresses;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.Map;

/**
 * Fetches and checks DID documents: {@code did:plc} from the PLC directory ({@code
 * KNOTLESS_PLC_URL}, else {@value #DEFAULT_PLC}), {@code did:web} from {@code
 * https://<host>/.well-known/did.json}. No caching here; {@link IdentityResolver} caches.
 * Thread-safe.
 */
public final class DidResolver {
  /** The public PLC directory. */
  public static final String DEFAULT_PLC = "https://plc.directory";

  private final URI plc;
  private final HttpClient http;
  private final ServiceAddresses addresses;

  /** A resolver reaching the servers {@link ServiceAddresses#process()} allows. */
  public DidResolver(URI plc, HttpClient http) {
    this(plc, http, ServiceAddresses.process());
  }

  /** A resolver reaching only the servers {@code addresses} allows. */
  public DidResolver(URI plc, HttpClient http, ServiceAddresses addresses) {
    this.plc = plc;
    this.http = http;
    this.addresses = addresses;
  }

  /**
   * A resolver configured from the environment ({@code KNOTLESS_PLC_URL}, {@value
   * ServiceAddresses#ALLOW_LOCAL}).
   */
  public static DidResolver fromEnvironment(Map<String, String> env, HttpClient http) {
    String plc = env.getOrDefault("KNOTLESS_PLC_URL", "");
    return new DidResolver(
        URI.create(plc.isBlank() ? DEFAULT_PLC : plc.trim()),
        http,
        ServiceAddresses.fromEnvironment(env));
  }

  /** The servers this resolver, and the PDSes its documents name, may be reached at. */
  public ServiceAddresses addresses() {
    return addresses;
  }

  /** The PLC directory asked for did:plc documents. */
  public URI plc() {
    return plc;
  }

  /**
   * The document of {@code did}.
   *
   * @throws IllegalArgumentException if {@code did} is not a DID atproto uses
   * @throws IdentityException if no document is found or it is malformed
   */
  public DidDocument resolve(String did) throws IdentityException {
    Identifiers.did(did);
    URI uri =
        did.startsWith("did:plc:")
            ? Fetch.under(plc, "/" + did)
            : URI.create("https://" + Identifiers.webHost(did) + "/.well-known/did.json");
    String purpose = "read the DID document of " + did;
    HttpResponse<String> response = Fetch.get(http, addresses, uri, "application/json", purpose);
    if (response.statusCode() == 404 || response.statusCode() == 410) {
      throw new IdentityException(
          did + " is not registered (" + uri + " answered " + response.statusCode() + ")");
    }
    if (response.statusCode() != 200) {
      throw new IdentityException(
          "could not " + purpose + ": " + uri + " answered " + response.statusCode());
    }
    return DidDocument.parse(did, Fetch.json(response, purpose));
  }
}
