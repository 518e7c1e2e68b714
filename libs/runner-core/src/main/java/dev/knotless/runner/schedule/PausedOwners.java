package dev.knotless.runner.schedule;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's stop ({@code --paused}): owners whose runs are not run, each with why. The file is
 * a JSON object whose keys are owner DIDs, or {@code *} for every owner but the runner's own
 * account, and whose values are the reason. Read again on every pass. Immutable and thread-safe.
 */
public final class PausedOwners {

  private static final Logger LOG = LoggerFactory.getLogger(PausedOwners.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EVERYONE = "*";

  private final Map<String, String> reasons;
  private final String runnerDid;

  private PausedOwners(Map<String, String> reasons, String runnerDid) {
    this.reasons = Map.copyOf(reasons);
    this.runnerDid = runnerDid;
  }

  /** No one paused: no {@code --paused} flag, or a file that cannot be read. */
  public static PausedOwners none() {
    return new PausedOwners(Map.of(), "");
  }

  /**
   * Reads the file. One that cannot be read (missing, unreadable) pauses no one, and is logged.
   *
   * @throws PausedFileException if it is read but is not such an object; the pass fails
   */
  public static PausedOwners read(Path file, String runnerDid) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      LOG.warn("paused file {} cannot be read, so no owner is paused: {}", file, e.toString());
      return none();
    }
    return parse(text, file.toString(), runnerDid);
  }

  /**
   * Parses the file's text; {@code source} names it in errors.
   *
   * @throws PausedFileException if the text is not a JSON object of DIDs (or {@code *}) to strings
   */
  public static PausedOwners parse(String text, String source, String runnerDid) {
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new PausedFileException(
          "paused file " + source + " is not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new PausedFileException(
          "paused file "
              + source
              + " must be a JSON object of owner DIDs (or \"*\") to reasons, not "
              + (root == null ? "empty" : root.getNodeType().name().toLowerCase()));
    }
    Map<String, String> reasons = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String key = field.getKey();
      if (!key.equals(EVERYONE) && !key.startsWith("did:")) {
        throw new PausedFileException(
            "paused file " + source + ": key \"" + key + "\" is neither an owner DID nor \"*\"");
      }
      if (!field.getValue().isTextual()) {
        throw new PausedFileException(
            "paused file " + source + ": the reason for \"" + key + "\" must be a string");
      }
      reasons.put(key, field.getValue().asText());
    }
    return new PausedOwners(reasons, runnerDid);
  }

  /**
   * Why the owner is paused, if they are: their own entry first, else {@code *}'s, which never
   * pauses the runner's own account.
   */
  public Optional<String> reasonFor(String ownerDid) {
    String own = reasons.get(ownerDid);
    if (own != null) {
      return Optional.of(own);
    }
    if (ownerDid.equals(runnerDid)) {
      return Optional.empty();
    }
    return Optional.ofNullable(reasons.get(EVERYONE));
  }

  /** The message a paused owner's checks are filed with. */
  public static String message(String reason) {
    return "paused by this runner's operator: " + reason;
  }

  /** Whether anyone is paused. */
  public boolean isEmpty() {
    return reasons.isEmpty();
  }
}
