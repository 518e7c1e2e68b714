package dev.knotless.runner.pass;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.reconcile.RerunRequest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the owner's {@code dev.knotless.rerun} records for one repository from the owner's PDS:
 * keys {@code <repo key>.<tid>}, scanned descending from {@code <repo key>/} (just above every key
 * of the repository) down to the newest request already acted on. Only the owner's account is read,
 * so a request in anyone else's account never counts.
 *
 * <p>A record of a shape this runner does not understand is logged, naming the record and what is
 * wrong, and becomes a request naming neither ref nor pull, which does nothing but still moves the
 * state past it, so the next pass neither acts on it nor logs it again. Stateless; thread-safe.
 */
public final class RerunRecords {

  /** The collection the owner's requests are in. */
  public static final String COLLECTION = "dev.knotless.rerun";

  private static final Logger LOG = LoggerFactory.getLogger(RerunRecords.class);
  private static final int PAGE = 100;

  private RerunRecords() {}

  /**
   * The requests newer than {@code after} (a record key; empty for all), newest first.
   *
   * @param label the repository's label, for the log line of a request not understood
   */
  public static List<RerunRequest> newerThan(
      RecordStore owner, String ownerDid, String repoKey, String after, String label)
      throws XrpcException {
    String prefix = repoKey + ".";
    String cursor = repoKey + "/";
    List<RerunRequest> out = new ArrayList<>();
    while (true) {
      RecordPage page = owner.listRecords(ownerDid, COLLECTION, PAGE, cursor, false);
      for (Record r : page.records()) {
        if (!r.rkey().startsWith(prefix) || r.rkey().compareTo(after) <= 0) {
          return out;
        }
        out.add(parse(r.rkey(), r.value(), label));
      }
      if (page.records().size() < PAGE || page.cursor() == null) {
        return out;
      }
      cursor = page.cursor();
    }
  }

  /** One record as a request; one not understood is logged and does nothing. */
  static RerunRequest parse(String rkey, JsonNode v, String label) {
    try {
      return understood(rkey, v);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "{}: rerun request {} is not understood, so it does nothing: {}",
          label,
          rkey,
          e.getMessage());
      return new RerunRequest(rkey, "", "", "", Map.of());
    }
  }

  /**
   * The request a record makes.
   *
   * @throws IllegalArgumentException naming what is wrong with its shape
   */
  static RerunRequest understood(String rkey, JsonNode v) {
    if (!v.isObject()) {
      throw new IllegalArgumentException("the record is not an object");
    }
    String ref = text(v, "ref");
    String pull = text(v, "pull");
    String workflow = text(v, "workflow");
    if (!ref.isEmpty() && !pull.isEmpty()) {
      throw new IllegalArgumentException("it names both a ref and a pull");
    }
    if (!ref.isEmpty() && !ref.startsWith("refs/")) {
      throw new IllegalArgumentException("ref " + ref + " is not a full ref name (refs/...)");
    }
    if (!pull.isEmpty() && !pull.startsWith("at://")) {
      throw new IllegalArgumentException("pull " + pull + " is not an AT-URI");
    }
    Map<String, String> vars = new LinkedHashMap<>();
    JsonNode n = v.get("vars");
    if (n != null && !n.isNull()) {
      if (!n.isObject()) {
        throw new IllegalArgumentException("vars is " + n.getNodeType() + ", not an object");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw new IllegalArgumentException(
              "variable " + e.getKey() + " is " + e.getValue().getNodeType() + ", not a string");
        }
        vars.put(e.getKey(), e.getValue().asText());
      }
    }
    if (!vars.isEmpty() && (ref.isEmpty() || workflow.isEmpty())) {
      throw new IllegalArgumentException("vars go only with a ref and a workflow");
    }
    return new RerunRequest(rkey, ref, pull, workflow, vars);
  }

  private static String text(JsonNode v, String field) {
    JsonNode n = v.get(field);
    if (n == null || n.isNull()) {
      return "";
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException(field + " is " + n.getNodeType() + ", not a string");
    }
    return n.asText();
  }
}
