package dev.knotless.runner.secrets;

import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SealException;
import dev.knotless.atproto.seal.SecretSeal;
import dev.knotless.runner.workflow.Glob;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Opens the secrets an owner sealed to this runner for one repository. What each was bound to is
 * rebuilt from where the runner found it: the owner's DID and repository key of the repository it
 * is running, its own DID, and the name and refs the listing gives. A value carried to another
 * repository, name, runner or set of refs therefore does not open, whatever the listing claims.
 * Stateless and thread-safe.
 */
public final class OwnerGrants {

  /**
   * One sealed value as the appview lists it for the repository.
   *
   * @param name the secret's name
   * @param refs the ref globs it is limited to, as written
   * @param sealed the sealed bytes and the key they were sealed to
   */
  public record Offer(String name, List<String> refs, SecretSeal.Sealed sealed) {
    public Offer {
      refs = List.copyOf(refs);
    }
  }

  /**
   * What was opened, and a line for the log for each that could not be used.
   *
   * @param grants the opened values by name; {@link SecretGrant#toString()} shows no value
   * @param logLines {@code ==> NAME, sealed by the owner, could not be used: <why>}; never a value
   */
  public record Opened(Map<String, SecretGrant> grants, List<String> logLines) {
    public Opened {
      grants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(grants));
      logLines = List.copyOf(logLines);
    }
  }

  private OwnerGrants() {}

  /**
   * Opens the offers whose name is wanted.
   *
   * @param wanted the names the workflow lists that the operator's file does not grant
   */
  public static Opened open(
      RunnerKeys keys,
      String runnerDid,
      String ownerDid,
      String repoKey,
      List<Offer> offers,
      Collection<String> wanted) {
    Map<String, SecretGrant> grants = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    for (Offer o : offers) {
      if (!wanted.contains(o.name()) || grants.containsKey(o.name())) {
        continue;
      }
      SealBinding binding = new SealBinding(ownerDid, repoKey, runnerDid, o.name(), o.refs());
      String value;
      try {
        value = keys.open(binding, o.sealed());
      } catch (SealException e) {
        lines.add(
            "==> " + o.name() + ", sealed by the owner, could not be used: it " + e.getMessage());
        continue;
      }
      List<Glob> refs = new ArrayList<>();
      try {
        for (String r : o.refs()) {
          refs.add(Glob.ref(r));
        }
      } catch (IllegalArgumentException e) {
        lines.add(
            "==> " + o.name() + ", sealed by the owner, could not be used: its refs do not parse");
        continue;
      }
      grants.put(o.name(), new SecretGrant(o.name(), value, refs));
    }
    return new Opened(grants, lines);
  }
}
