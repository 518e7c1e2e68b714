package dev.knotless.storage;

import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.storage.records.RepoRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one read of a repository saw: its repo record (absent for a name nothing holds), every ref
 * record in descending key order (including empty pre-0.6 records of deleted refs), and, when the
 * read asked for them, the newest packs. {@code packsExhausted} says the newest packs were all the
 * packs there are. {@code renamedFrom} is the name a redirect was followed from, if any. Immutable.
 */
public record Snapshot(
    RepoAddress address,
    RepoRecord repo,
    List<RefRecord> refs,
    List<PackRecord> newestPacks,
    boolean packsExhausted,
    String renamedFrom,
    Instant readAt) {

  public Snapshot {
    refs = List.copyOf(refs);
    newestPacks = List.copyOf(newestPacks);
  }

  /** Whether a repo record exists under the name. */
  public boolean exists() {
    return repo != null;
  }

  /** The repository's key, when it exists. */
  public Optional<String> key() {
    return repo == null ? Optional.empty() : Optional.of(repo.key());
  }

  /** Live refs by full name, in ref-record order. */
  public Map<String, RefRecord> liveRefs() {
    Map<String, RefRecord> out = new LinkedHashMap<>();
    for (RefRecord r : refs) {
      if (r.live()) {
        out.put(r.name(), r);
      }
    }
    return out;
  }

  /** The record of {@code name}, live or an empty pre-0.6 one. */
  public Optional<RefRecord> ref(String name) {
    return refs.stream().filter(r -> r.name().equals(name)).findFirst();
  }

  /** The full name of the default branch, if the record names one that is live. */
  public Optional<String> headRef() {
    if (repo == null || repo.defaultBranch() == null) {
      return Optional.empty();
    }
    String full = "refs/heads/" + repo.defaultBranch();
    return liveRefs().containsKey(full) ? Optional.of(full) : Optional.empty();
  }
}
