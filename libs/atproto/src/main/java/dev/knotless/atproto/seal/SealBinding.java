package dev.knotless.atproto.seal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a sealed secret is for, bound to it as HPKE's associated data: the owner's DID, the
 * repository's key (its record key, so a rename keeps a secret and a new repository under an old
 * name does not inherit it), the runner's DID, the secret's name and the refs it is limited to. The
 * runner rebuilds it from where it found a value, so a value carried to another repository, name,
 * runner or set of refs does not open. Immutable.
 *
 * @param refs the ref globs, in the order written; empty for every ref
 */
public record SealBinding(
    String ownerDid, String repoKey, String runnerDid, String name, List<String> refs) {

  /** HPKE's info: which protocol and version the key is used for. */
  static final byte[] INFO = "dev.knotless.secret v1".getBytes(StandardCharsets.UTF_8);

  public SealBinding {
    refs = List.copyOf(refs);
  }

  /**
   * The associated data: each field as a 4-byte big-endian length and its UTF-8 bytes, the refs
   * after their count, so no two bindings share an encoding.
   */
  public byte[] associatedData() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    field(out, "dev.knotless.secret");
    field(out, ownerDid);
    field(out, repoKey);
    field(out, runnerDid);
    field(out, name);
    length(out, refs.size());
    for (String r : refs) {
      field(out, r);
    }
    return out.toByteArray();
  }

  private static void field(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    length(out, b.length);
    out.writeBytes(b);
  }

  private static void length(ByteArrayOutputStream out, int n) {
    out.write(n >>> 24);
    out.write(n >>> 16);
    out.write(n >>> 8);
    out.write(n);
  }
}
