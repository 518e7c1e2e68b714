package dev.knotless.atproto.identity;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The parts of an account's DID document atproto uses: the handles it claims ({@code alsoKnownAs}
 * entries {@code at://<handle>}, in order), its PDS (the {@code #atproto_pds} service) and its
 * signing key (the {@code #atproto} verification method) as a {@code did:key}.
 *
 * <p>{@link #parse} accepts both key encodings found in the wild: {@code Multikey} with a {@code
 * zQ3s…}/{@code zDn…} multicodec key, and the older {@code EcdsaSecp256k1VerificationKey2019} (or
 * {@code …Secp256r1…}) with the bare key, compressed or not, which the PLC's {@code /<did>}
 * endpoint still returns. Immutable and thread-safe.
 *
 * @param did the document's {@code id}
 * @param handles the claimed handles, lowercased; entries that are no valid handle are left out
 * @param pds the PDS endpoint
 * @param signingKey the {@code #atproto} key as {@code did:key:z…}
 */
public record DidDocument(String did, List<String> handles, URI pds, String signingKey) {
  private static final byte[] SECP256K1 = {(byte) 0xe7, 0x01};
  private static final byte[] P256 = {(byte) 0x80, 0x24};

  public DidDocument {
    handles = List.copyOf(handles);
  }

  /**
   * Reads a DID document fetched for {@code did}.
   *
   * @throws IdentityException naming the DID and what is wrong, if the document is not for that
   *     DID, has no PDS service or no usable {@code #atproto} key
   */
  public static DidDocument parse(String did, JsonNode doc) throws IdentityException {
    String prefix = "the DID document of " + did + " ";
    if (doc == null || !doc.isObject()) {
      throw new IdentityException(prefix + "is not a JSON object");
    }
    String id = doc.path("id").asText(null);
    if (!did.equals(id)) {
      throw new IdentityException(prefix + "is for another DID: " + doc.path("id"));
    }
    List<String> handles = new ArrayList<>();
    for (JsonNode aka : doc.path("alsoKnownAs")) {
      String s = aka.asText("");
      if (s.startsWith("at://")) {
        try {
          handles.add(Identifiers.handle(s.substring("at://".length())));
        } catch (IllegalArgumentException e) {
          // A claim that is no handle verifies nothing; other entries may still do.
        }
      }
    }
    return new DidDocument(did, handles, pds(did, doc, prefix), signingKey(did, doc, prefix));
  }

  /** The first claimed handle, the one atproto treats as the account's, if any. */
  public java.util.Optional<String> primaryHandle() {
    return handles.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(handles.get(0));
  }

  private static boolean named(JsonNode entry, String did, String fragment) {
    String id = entry.path("id").asText("");
    return id.equals(fragment) || id.equals(did + fragment);
  }

  private static URI pds(String did, JsonNode doc, String prefix) throws IdentityException {
    for (JsonNode service : doc.path("service")) {
      if (!named(service, did, "#atproto_pds")) {
        continue;
      }
      if (!"AtprotoPersonalDataServer".equals(service.path("type").asText())) {
        throw new IdentityException(
            prefix
                + "has an #atproto_pds service of type "
                + service.path("type")
                + ", not AtprotoPersonalDataServer");
      }
      String endpoint = service.path("serviceEndpoint").asText("");
      try {
        URI uri = new URI(endpoint);
        if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))
            || uri.getHost() == null
            || uri.getRawQuery() != null
            || uri.getRawFragment() != null) {
          throw new IdentityException(
              prefix + "names a PDS that is no http(s) address: \"" + endpoint + "\"");
        }
        return uri;
      } catch (URISyntaxException e) {
        throw new IdentityException(
            prefix + "names a PDS that is no address: \"" + endpoint + "\"", e);
      }
    }
    throw new IdentityException(prefix + "names no PDS (no #atproto_pds service)");
  }

  private static String signingKey(String did, JsonNode doc, String prefix)
      throws IdentityException {
    for (JsonNode method : doc.path("verificationMethod")) {
      if (!named(method, did, "#atproto")) {
        continue;
      }
      String type = method.path("type").asText("");
      String multibase = method.path("publicKeyMultibase").asText("");
      if (!multibase.startsWith("z") || multibase.length() < 2) {
        throw new IdentityException(
            prefix
                + "has an #atproto key that is not base58btc multibase (z…): \""
                + multibase
                + "\"");
      }
      byte[] bytes;
      try {
        bytes = Base58.decode(multibase.substring(1));
      } catch (IllegalArgumentException e) {
        throw new IdentityException(
            prefix + "has an #atproto key that does not decode: " + e.getMessage());
      }
      byte[] multikey =
          switch (type) {
            case "Multikey" -> multikey(bytes, prefix);
            case "EcdsaSecp256k1VerificationKey2019" -> compressed(SECP256K1, bytes, prefix);
            case "EcdsaSecp256r1VerificationKey2019" -> compressed(P256, bytes, prefix);
            default ->
                throw new IdentityException(
                    prefix + "has an #atproto key of unknown type \"" + type + "\"");
          };
      return "did:key:z" + Base58.encode(multikey);
    }
    throw new IdentityException(prefix + "has no #atproto verification method (signing key)");
  }

  private static byte[] multikey(byte[] bytes, String prefix) throws IdentityException {
    if (bytes.length == 35
        && (Arrays.equals(Arrays.copyOf(bytes, 2), SECP256K1)
            || Arrays.equals(Arrays.copyOf(bytes, 2), P256))) {
      checkCompressed(bytes[2], prefix);
      return bytes;
    }
    throw new IdentityException(
        prefix + "has a Multikey #atproto key that is no compressed secp256k1 or P-256 key");
  }

  /**
   * A legacy key: the bare point, compressed (33 bytes) or, as the PLC directory writes it,
   * uncompressed (65 bytes), which is compressed here so the did:key matches the Multikey form.
   */
  private static byte[] compressed(byte[] codec, byte[] key, String prefix)
      throws IdentityException {
    if (key.length == 65 && key[0] == 0x04) {
      byte[] point = new byte[33];
      point[0] = (byte) ((key[64] & 1) == 0 ? 0x02 : 0x03);
      System.arraycopy(key, 1, point, 1, 32);
      return Base58.concat(codec, point);
    }
    if (key.length != 33) {
      throw new IdentityException(
          prefix
              + "has an #atproto key of "
              + key.length
              + " bytes; a public key has 33 (compressed) or 65");
    }
    checkCompressed(key[0], prefix);
    return Base58.concat(codec, key);
  }

  private static void checkCompressed(byte first, String prefix) throws IdentityException {
    if (first != 0x02 && first != 0x03) {
      throw new IdentityException(prefix + "has an #atproto key that is not a compressed point");
    }
  }
}
