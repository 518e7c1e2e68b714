package dev.knotless.atproto.identity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves a handle or a DID to an {@link Identity}: the DID, the PDS from its DID document, and
 * the handle, verified both ways.
 *
 * <p>A handle goes to a DID through {@link HandleResolver}; a DID to its document through {@link
 * DidResolver}. A handle counts as verified when the document lists it in {@code alsoKnownAs} and
 * it resolves to that DID. Results are kept in the local cache for an hour ({@code identity.json}
 * by the name asked for and by DID, {@code handles.json} by DID); {@link #forget} drops them
 * sooner, for a PDS that says the account is not there.
 *
 * <p>Configuration comes from the environment map given: {@code KNOTLESS_PLC_URL}, {@code
 * KNOTLESS_HANDLE_RESOLVER}. Thread-safe.
 */
public final class IdentityResolver {
  private final HandleResolver handles;
  private final DidResolver dids;
  private final LocalCache cache;

  /**
   * @param cache where results are kept, or null to resolve every time
   */
  public IdentityResolver(HandleResolver handles, DidResolver dids, LocalCache cache) {
    this.handles = handles;
    this.dids = dids;
    this.cache = cache;
  }

  /** A resolver configured from {@code env} ({@code System.getenv()} in production). */
  public static IdentityResolver fromEnvironment(Map<String, String> env, LocalCache cache) {
    HttpClient http = dev.knotless.atproto.ServiceAddresses.fromEnvironment(env).client();
    return new IdentityResolver(
        HandleResolver.fromEnvironment(env, http), DidResolver.fromEnvironment(env, http), cache);
  }

  /**
   * Resolves {@code handleOrDid} ({@code alice.example.com}, {@code @alice.example.com} or {@code
   * did:plc:…}).
   *
   * @throws IllegalArgumentException if it is neither a valid handle nor a DID atproto uses
   * @throws IdentityException if it does not resolve, or its DID document is malformed
   */
  public Identity resolve(String handleOrDid) throws IdentityException {
    String key =
        Identifiers.looksLikeDid(handleOrDid)
            ? Identifiers.did(handleOrDid)
            : Identifiers.handle(handleOrDid);
    Optional<Identity> cached = cached(key);
    if (cached.isPresent()) {
      return cached.get();
    }
    Identity identity = resolveFresh(key);
    remember(key, identity);
    return identity;
  }

  /** Forgets what is cached for {@code handleOrDid} and its DID, so the next resolve asks again. */
  public void forget(String handleOrDid) {
    if (cache == null) {
      return;
    }
    String key =
        Identifiers.looksLikeDid(handleOrDid)
            ? Identifiers.did(handleOrDid)
            : Identifiers.handle(handleOrDid);
    cache
        .get(CacheFile.IDENTITY, key)
        .map(v -> v.path("did").asText())
        .ifPresent(
            did -> {
              cache.remove(CacheFile.IDENTITY, did);
              cache.remove(CacheFile.HANDLES, did);
            });
    cache.remove(CacheFile.IDENTITY, key);
  }

  private Identity resolveFresh(String key) throws IdentityException {
    boolean byDid = Identifiers.looksLikeDid(key);
    String did = byDid ? key : handles.resolve(key);
    DidDocument doc = dids.resolve(did);
    try {
      // Refused here, naming the DID, rather than at the first call to the PDS.
      dids.addresses().check(doc.pds(), "the PDS the DID document of " + did + " names");
    } catch (ServiceAddresses.Refused e) {
      throw new IdentityException(e.getMessage(), e);
    }
    String handle = null;
    if (!byDid) {
      // The handle already points at this DID; the document must claim it back.
      handle = doc.handles().contains(key) ? key : null;
    } else if (doc.primaryHandle().isPresent()) {
      String claimed = doc.primaryHandle().get();
      handle = pointsAt(claimed, did) ? claimed : null;
    }
    return new Identity(did, handle, doc.pds());
  }

  /** Whether {@code handle} resolves to {@code did}; a handle that does not resolve does not. */
  private boolean pointsAt(String handle, String did) {
    try {
      return did.equals(handles.resolve(handle));
    } catch (IdentityException e) {
      // An unresolvable claim is an unverified handle, not a failed lookup of the account.
      return false;
    }
  }

  private Optional<Identity> cached(String key) {
    if (cache == null) {
      return Optional.empty();
    }
    Optional<JsonNode> entry = cache.get(CacheFile.IDENTITY, key);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    String did = entry.get().path("did").asText("");
    String pds = entry.get().path("pds").asText("");
    Optional<JsonNode> handle = cache.get(CacheFile.HANDLES, did);
    if (did.isEmpty() || pds.isEmpty() || handle.isEmpty()) {
      return Optional.empty();
    }
    JsonNode h = handle.get().path("handle");
    if (!Identifiers.looksLikeDid(key) && !key.equals(h.asText(null))) {
      // The name asked for no longer verifies as this account's handle: ask again.
      return Optional.empty();
    }
    return Optional.of(new Identity(did, h.isTextual() ? h.asText() : null, URI.create(pds)));
  }

  private void remember(String key, Identity identity) {
    if (cache == null) {
      return;
    }
    ObjectNode value = Json.object();
    value.put("did", identity.did()).put("pds", identity.pds().toString());
    // Both names in one update of the file.
    Map<String, JsonNode> entries = new java.util.HashMap<>();
    entries.put(key, value);
    entries.put(identity.did(), value);
    cache.put(CacheFile.IDENTITY, entries);
    ObjectNode handle = Json.object();
    if (identity.handle() != null) {
      handle.put("handle", identity.handle());
    } else {
      handle.putNull("handle");
    }
    cache.put(CacheFile.HANDLES, identity.did(), handle);
  }
}
