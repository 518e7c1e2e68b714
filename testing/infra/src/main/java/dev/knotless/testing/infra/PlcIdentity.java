package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.RecordCid;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;

/**
 * Makes a {@code did:plc} for a harness service in the test PLC directory: a genesis operation
 * whose one rotation and {@code #atproto} key is a fresh secp256k1 key, naming one service, signed
 * and posted as the PLC's rules ask (DAG-CBOR, SHA-256, a low-S compact signature; the DID is the
 * first 24 base32 characters of the signed operation's hash). The DID is never updated; its key is
 * kept only by a service that signs service tokens with it ({@link #createSigning}).
 */
final class PlcIdentity {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final X9ECParameters K256 = CustomNamedCurves.getByName("secp256k1");
  private static final ECDomainParameters DOMAIN =
      new ECDomainParameters(K256.getCurve(), K256.getG(), K256.getN(), K256.getH());
  private static final String BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

  private PlcIdentity() {}

  /**
   * Registers a new DID whose document names the service {@code #<id>} of {@code type} at {@code
   * endpoint}.
   *
   * @return the DID
   */
  static String create(URI plc, String id, String type, URI endpoint) throws IOException {
    return createSigning(plc, id, type, endpoint).did();
  }

  /** A DID and its {@code #atproto} key, which signs the service tokens it issues. */
  record Signing(String did, BigInteger key) {
    /**
     * A service token (ES256K JWT) issued by this DID for {@code aud} and the method {@code lxm},
     * good for a minute, as {@code com.atproto.server.getServiceAuth} gives one.
     */
    String serviceToken(String aud, String lxm) {
      long now = java.time.Instant.now().getEpochSecond();
      ObjectNode header = JSON.createObjectNode().put("typ", "JWT").put("alg", "ES256K");
      ObjectNode claims =
          JSON.createObjectNode()
              .put("iss", did)
              .put("aud", aud)
              .put("lxm", lxm)
              .put("iat", now)
              .put("exp", now + 60)
              .put("jti", java.util.UUID.randomUUID().toString());
      Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
      String signed =
          b64.encodeToString(header.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))
              + "."
              + b64.encodeToString(
                  claims.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return signed
          + "."
          + sign(key, Hashes.sha256(signed.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    }
  }

  /** As {@link #create}, keeping the key. */
  static Signing createSigning(URI plc, String id, String type, URI endpoint) throws IOException {
    BigInteger d;
    SecureRandom random = new SecureRandom();
    do {
      d = new BigInteger(256, random);
    } while (d.signum() == 0 || d.compareTo(DOMAIN.getN()) >= 0);
    byte[] pub = DOMAIN.getG().multiply(d).normalize().getEncoded(true);
    byte[] multi = new byte[pub.length + 2];
    multi[0] = (byte) 0xe7;
    multi[1] = 0x01;
    System.arraycopy(pub, 0, multi, 2, pub.length);
    String key = "did:key:z" + base58(multi);

    ObjectNode op = JSON.createObjectNode();
    op.put("type", "plc_operation");
    op.putArray("rotationKeys").add(key);
    op.putObject("verificationMethods").put("atproto", key);
    op.putArray("alsoKnownAs");
    op.putObject("services").putObject(id).put("type", type).put("endpoint", endpoint.toString());
    op.putNull("prev");
    op.put("sig", sign(d, Hashes.sha256(RecordCid.dagCbor(op))));
    String did = "did:plc:" + Hashes.base32(Hashes.sha256(RecordCid.dagCbor(op))).substring(0, 24);

    HttpRequest req =
        HttpRequest.newBuilder(URI.create(plc + "/" + did))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(op)))
            .build();
    try {
      HttpResponse<String> r =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(req, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() / 100 != 2) {
        throw new IOException("the PLC refused " + did + ": " + r.statusCode() + " " + r.body());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted registering " + did, e);
    }
    return new Signing(did, d);
  }

  /** The compact (r, s) signature, s low, base64url without padding. */
  private static String sign(BigInteger d, byte[] hash) {
    ECDSASigner signer = new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest()));
    signer.init(true, new ECPrivateKeyParameters(d, DOMAIN));
    BigInteger[] rs = signer.generateSignature(hash);
    BigInteger s = rs[1];
    if (s.compareTo(DOMAIN.getN().shiftRight(1)) > 0) {
      s = DOMAIN.getN().subtract(s);
    }
    byte[] out = new byte[64];
    fixed(rs[0], out, 0);
    fixed(s, out, 32);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
  }

  private static void fixed(BigInteger n, byte[] out, int at) {
    byte[] b = n.toByteArray();
    int len = Math.min(b.length, 32);
    System.arraycopy(b, b.length - len, out, at + 32 - len, len);
  }

  private static String base58(byte[] data) {
    StringBuilder sb = new StringBuilder();
    BigInteger n = new BigInteger(1, data);
    BigInteger base = BigInteger.valueOf(58);
    while (n.signum() > 0) {
      BigInteger[] qr = n.divideAndRemainder(base);
      sb.append(BASE58.charAt(qr[1].intValue()));
      n = qr[0];
    }
    for (int i = 0; i < data.length && data[i] == 0; i++) {
      sb.append('1');
    }
    return sb.reverse().toString();
  }
}
