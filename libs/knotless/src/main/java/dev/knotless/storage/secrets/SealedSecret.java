package dev.knotless.storage.secrets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SecretSeal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One secret an owner sealed to a runner, as the appview keeps it ({@code
 * dev.knotless.listSecrets#secretView}): where it is for, and the sealed bytes. It holds no
 * plaintext, and what it is for is exactly what the value was bound to when sealed, so a reader
 * that rebuilds the binding from these fields opens it only where it was meant to go. Immutable.
 *
 * @param did the repository owner's DID
 * @param key the repository's key (its record key's TID, fixed when it was made)
 * @param runner the runner's DID
 * @param name the secret's name, as a workflow lists it
 * @param refs the ref globs it is limited to, as written; empty for every ref
 * @param sealed the did:key it was sealed to, the encapsulated key and the ciphertext
 * @param createdAt when it was sealed, as written (RFC 3339)
 */
public record SealedSecret(
    String did,
    String key,
    String runner,
    String name,
    List<String> refs,
    SecretSeal.Sealed sealed,
    String createdAt) {

  public SealedSecret {
    refs = List.copyOf(refs);
  }

  /** What it is bound to, rebuilt from where it is said to be for. */
  public SealBinding binding() {
    return new SealBinding(did, key, runner, name, refs);
  }

  /** As the appview's lexicon writes it. */
  public ObjectNode toJson() {
    ObjectNode n = Json.object();
    n.put("did", did);
    n.put("key", key);
    n.put("runner", runner);
    n.put("name", name);
    var list = n.putArray("refs");
    refs.forEach(list::add);
    n.put("recipient", sealed.recipient());
    n.put("enc", sealed.enc());
    n.put("ciphertext", sealed.ciphertext());
    n.put("createdAt", createdAt);
    return n;
  }

  /**
   * Reads one as the appview lists it.
   *
   * @throws IOException naming the field that is missing or not a string
   */
  public static SealedSecret fromJson(JsonNode n) throws IOException {
    List<String> refs = new ArrayList<>();
    for (JsonNode r : n.path("refs")) {
      if (!r.isTextual()) {
        throw new IOException("a sealed secret's refs hold something other than strings");
      }
      refs.add(r.asText());
    }
    return new SealedSecret(
        text(n, "did"),
        text(n, "key"),
        text(n, "runner"),
        text(n, "name"),
        refs,
        new SecretSeal.Sealed(text(n, "recipient"), text(n, "enc"), text(n, "ciphertext")),
        n.path("createdAt").asText(""));
  }

  private static String text(JsonNode n, String field) throws IOException {
    JsonNode v = n.path(field);
    if (!v.isTextual() || v.asText().isEmpty()) {
      throw new IOException("a sealed secret has no " + field);
    }
    return v.asText();
  }

  @Override
  public String toString() {
    return "SealedSecret["
        + did
        + "/"
        + key
        + " "
        + name
        + " for "
        + runner
        + ", refs="
        + refs
        + "]";
  }
}
