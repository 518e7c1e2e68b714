package dev.knotless.storage.secrets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.XrpcClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sealed secrets at the appview: {@code dev.knotless.putSecret}, {@code deleteSecret} and {@code
 * listSecrets}, each call carrying a service token the caller's own PDS signs for the appview's DID
 * (from {@code dev.knotless.describeServer}) and that one method. The appview keeps ciphertext
 * only; who may write or read what is its to check from the token. Thread-safe.
 */
public final class AppviewSecrets {

  public static final String PUT = "dev.knotless.putSecret";
  public static final String DELETE = "dev.knotless.deleteSecret";
  public static final String LIST = "dev.knotless.listSecrets";
  public static final String DESCRIBE = "dev.knotless.describeServer";

  private final XrpcClient appview;
  private final XrpcClient account;
  private volatile String appviewDid;

  /**
   * @param appview a client of the appview (KNOTLESS_APPVIEW)
   * @param account a logged-in client of the caller's PDS, which signs the service tokens
   */
  public AppviewSecrets(XrpcClient appview, XrpcClient account) {
    this.appview = appview;
    this.account = account;
  }

  /** What the appview says of itself: its DID and, if it names one, the default runner. */
  public record Description(String did, String defaultRunner) {}

  /** Reads {@code dev.knotless.describeServer} from {@code appview}. */
  public static Description describe(XrpcClient appview) throws IOException {
    JsonNode r = appview.query(DESCRIBE, Map.of());
    String did = r.path("did").asText("");
    if (!did.startsWith("did:")) {
      throw new IOException("the appview's " + DESCRIBE + " names no DID");
    }
    String runner = r.path("defaultRunner").asText("");
    return new Description(did, runner.startsWith("did:") ? runner : null);
  }

  /** Leaves a sealed secret at the appview, replacing one of the same repository, runner, name. */
  public void put(SealedSecret s) throws IOException {
    appview.procedureWith(token(PUT), PUT, s.toJson());
  }

  /**
   * Removes one.
   *
   * @return whether there was one to remove
   */
  public boolean delete(String did, String key, String runner, String name) throws IOException {
    ObjectNode body = Json.object();
    body.put("did", did);
    body.put("key", key);
    body.put("runner", runner);
    body.put("name", name);
    return appview.procedureWith(token(DELETE), DELETE, body).path("deleted").asBoolean(false);
  }

  /**
   * The repository's sealed secrets the caller may see: an owner sees all, a runner those sealed to
   * it.
   *
   * @param runner only those for this runner, or null for all the caller may see
   * @throws IOException when the appview does not answer, refuses, or lists what does not parse
   */
  public List<SealedSecret> list(String did, String key, String runner) throws IOException {
    Map<String, String> params = new HashMap<>();
    params.put("did", did);
    params.put("key", key);
    if (runner != null) {
      params.put("runner", runner);
    }
    JsonNode r = appview.queryWith(token(LIST), LIST, params);
    if (!r.path("secrets").isArray()) {
      throw new IOException("the appview's " + LIST + " answered without secrets");
    }
    List<SealedSecret> out = new ArrayList<>();
    for (JsonNode n : r.path("secrets")) {
      out.add(SealedSecret.fromJson(n));
    }
    return out;
  }

  private String token(String lxm) throws IOException {
    String aud = appviewDid;
    if (aud == null) {
      aud = describe(appview).did();
      appviewDid = aud;
    }
    return account.serviceToken(aud, lxm);
  }
}
