package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The CID a PDS gives a record, worked out before the record is sent: the record's DAG-CBOR bytes
 * hashed with SHA-256, as a version-1 CID with the dag-cbor codec, in base32 ({@code bafyrei…}).
 *
 * <p>Knowing it ahead lets a second write to the same record go out before the first one's reply
 * comes back, guarded on it with {@link Swap#cid}: the PDS lands the second only after the first.
 *
 * <p>The record is read as JSON in the atproto data model: {@code {"$link": "<cid>"}} is a link
 * (CBOR tag 42), {@code {"$bytes": "<base64>"}} is a byte string, and numbers must be integers.
 * DAG-CBOR's rules apply: the shortest form of every length and integer, and a map's keys ordered
 * shortest first, then by their bytes. Stateless and thread-safe.
 */
public final class RecordCid {

  /** A version-1 CID's head: version 1, codec dag-cbor (0x71), hash sha2-256 (0x12), 32 bytes. */
  private static final byte[] HEAD = {0x01, 0x71, 0x12, 0x20};

  private static final String BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

  private RecordCid() {}

  /**
   * The record's CID, as the PDS will name it.
   *
   * @throws IllegalArgumentException naming the field, if the record holds a float or a link or
   *     bytes that do not decode
   */
  public static String of(JsonNode record) {
    byte[] hash = Hashes.sha256(dagCbor(record));
    byte[] cid = Arrays.copyOf(HEAD, HEAD.length + hash.length);
    System.arraycopy(hash, 0, cid, HEAD.length, hash.length);
    return "b" + Hashes.base32(cid);
  }

  /** The record's DAG-CBOR bytes. */
  public static byte[] dagCbor(JsonNode value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    write(out, value, "record");
    return out.toByteArray();
  }

  private static void write(ByteArrayOutputStream out, JsonNode v, String where) {
    switch (v.getNodeType()) {
      case NULL -> out.write(0xf6);
      case BOOLEAN -> out.write(v.booleanValue() ? 0xf5 : 0xf4);
      case STRING -> text(out, v.textValue());
      case NUMBER -> integer(out, v, where);
      case ARRAY -> {
        head(out, 4, v.size());
        int i = 0;
        for (JsonNode each : v) {
          write(out, each, where + "[" + i++ + "]");
        }
      }
      case OBJECT -> object(out, v, where);
      default ->
          throw new IllegalArgumentException(
              where + " is " + v.getNodeType() + ", which the atproto data model does not hold");
    }
  }

  private static void object(ByteArrayOutputStream out, JsonNode v, String where) {
    if (v.size() == 1 && v.path("$link").isTextual()) {
      byte[] cid = decodeCid(v.path("$link").textValue(), where);
      head(out, 6, 42);
      head(out, 2, cid.length + 1L);
      out.write(0); // the multibase identity prefix a CID carries inside CBOR
      out.writeBytes(cid);
      return;
    }
    if (v.size() == 1 && v.path("$bytes").isTextual()) {
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(v.path("$bytes").textValue());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ".$bytes is not base64", e);
      }
      head(out, 2, bytes.length);
      out.writeBytes(bytes);
      return;
    }
    List<Map.Entry<byte[], JsonNode>> fields = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      fields.add(Map.entry(f.getKey().getBytes(StandardCharsets.UTF_8), f.getValue()));
    }
    fields.sort(
        (a, b) ->
            a.getKey().length != b.getKey().length
                ? Integer.compare(a.getKey().length, b.getKey().length)
                : Arrays.compareUnsigned(a.getKey(), b.getKey()));
    head(out, 5, fields.size());
    for (Map.Entry<byte[], JsonNode> f : fields) {
      head(out, 3, f.getKey().length);
      out.writeBytes(f.getKey());
      write(out, f.getValue(), where + "." + new String(f.getKey(), StandardCharsets.UTF_8));
    }
  }

  private static void integer(ByteArrayOutputStream out, JsonNode v, String where) {
    if (!v.isIntegralNumber()) {
      throw new IllegalArgumentException(
          where + " is " + v.asText() + ": the atproto data model holds integers only");
    }
    BigInteger n = v.bigIntegerValue();
    if (n.signum() >= 0) {
      if (n.compareTo(TWO_TO_64) >= 0) {
        throw new IllegalArgumentException(where + " is " + n + ", beyond 64 bits");
      }
      head(out, 0, n.longValue());
    } else {
      BigInteger m = n.negate().subtract(BigInteger.ONE);
      if (m.compareTo(TWO_TO_64) >= 0) {
        throw new IllegalArgumentException(where + " is " + n + ", beyond 64 bits");
      }
      head(out, 1, m.longValue());
    }
  }

  private static void text(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    head(out, 3, b.length);
    out.writeBytes(b);
  }

  /** A CBOR head: major type and argument, in the shortest form; {@code n} read unsigned. */
  private static void head(ByteArrayOutputStream out, int major, long n) {
    int m = major << 5;
    if (n >= 0 && n < 24) {
      out.write(m | (int) n);
    } else if (n >= 0 && n < 0x100) {
      out.write(m | 24);
      out.write((int) n);
    } else if (n >= 0 && n < 0x10000) {
      out.write(m | 25);
      out.write((int) (n >>> 8));
      out.write((int) n);
    } else if (n >= 0 && n < 0x100000000L) {
      out.write(m | 26);
      for (int shift = 24; shift >= 0; shift -= 8) {
        out.write((int) (n >>> shift));
      }
    } else {
      out.write(m | 27);
      for (int shift = 56; shift >= 0; shift -= 8) {
        out.write((int) (n >>> shift));
      }
    }
  }

  /** A base32 CID string ({@code b…}) as its bytes. */
  private static byte[] decodeCid(String cid, String where) {
    if (cid.length() < 2 || cid.charAt(0) != 'b') {
      throw new IllegalArgumentException(
          where + ".$link is not a base32 CID (it must start with \"b\"): " + cid);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(cid.length() * 5 / 8);
    int buffer = 0;
    int bits = 0;
    for (int i = 1; i < cid.length(); i++) {
      int d = BASE32.indexOf(cid.charAt(i));
      if (d < 0) {
        throw new IllegalArgumentException(
            where + ".$link holds \"" + cid.charAt(i) + "\", not base32: " + cid);
      }
      buffer = (buffer << 5) | d;
      bits += 5;
      if (bits >= 8) {
        out.write((buffer >>> (bits - 8)) & 0xff);
        bits -= 8;
      }
    }
    return out.toByteArray();
  }
}
