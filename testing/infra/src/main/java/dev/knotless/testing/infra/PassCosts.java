package dev.knotless.testing.infra;

import dev.knotless.testing.CountingProxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What passes of {@link IdleRepos} cost, from a {@link CountingProxy}'s requests: each request
 * given to the repository it reads (its record by name, its refs and the owner's rerun requests by
 * the key their range starts at), and its round trips counted among that repository's requests
 * alone, so passes of other repositories at the same time do not merge with them. A request that
 * reads none of them (the runner's own account, another collection) is counted apart, as {@code
 * other}. Immutable.
 *
 * @param repos how many repositories were asked about
 * @param read how many of them had at least one request
 * @param requests every request, the others included
 * @param trips the round trips summed over the repositories read
 * @param mostRequests the most requests one repository had
 * @param mostTrips the most round trips one repository had
 * @param worst the repository with the most round trips, then requests, with what it was asked
 * @param byMethod requests per XRPC method and collection, such as {@code listRecords
 *     dev.knotless.ref}
 * @param other the requests given to no repository, as {@code method?query}
 * @param reposByMethod how many repositories had at least one request of each method and
 *     collection: {@code listRecords dev.knotless.rerun} counts those a pass has reached
 */
public record PassCosts(
    int repos,
    int read,
    int requests,
    int trips,
    int mostRequests,
    int mostTrips,
    String worst,
    Map<String, Integer> byMethod,
    List<String> other,
    Map<String, Integer> reposByMethod) {

  /**
   * The reads of one idle pass, by method and collection: the repo record, its refs and the owner's
   * reruns for it (storage.md, The snapshot; runner.md, Reruns).
   */
  public static final java.util.Map<String, Integer> IDLE_PASS =
      java.util.Map.of(
          "getRecord dev.knotless.repo", 1,
          "listRecords dev.knotless.ref", 1,
          "listRecords dev.knotless.rerun", 1);

  /** The costs of {@code spans}, the requests of passes of {@code repos} in {@code ownerDid}. */
  public static PassCosts of(
      List<CountingProxy.Span> spans, String ownerDid, List<IdleRepos.Repo> repos) {
    Map<String, String> keyOfName = names(repos);
    Map<String, List<CountingProxy.Span>> byRepo = new HashMap<>();
    Map<String, Integer> methods = new TreeMap<>();
    Map<String, java.util.Set<String>> reposOf = new TreeMap<>();
    List<String> other = new ArrayList<>();
    for (CountingProxy.Span s : spans) {
      String collection = s.parameter("collection");
      String method = s.method().substring(s.method().lastIndexOf('.') + 1);
      String what = collection == null ? method : method + " " + collection;
      methods.merge(what, 1, Integer::sum);
      String key = ownerDid.equals(s.parameter("repo")) ? keyOf(s, keyOfName) : null;
      if (key == null) {
        other.add(s.method() + "?" + s.query());
      } else {
        byRepo.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        reposOf.computeIfAbsent(what, k -> new java.util.HashSet<>()).add(key);
      }
    }
    int trips = 0;
    int mostRequests = 0;
    int mostTrips = 0;
    String worst = "";
    for (Map.Entry<String, List<CountingProxy.Span>> e : byRepo.entrySet()) {
      int t = CountingProxy.roundTrips(e.getValue());
      int n = e.getValue().size();
      trips += t;
      if (t > mostTrips || (t == mostTrips && n > mostRequests)) {
        worst =
            e.getKey()
                + ": "
                + t
                + " round trips, "
                + e.getValue().stream().map(s -> s.method() + "?" + s.query()).toList();
      }
      mostTrips = Math.max(mostTrips, t);
      mostRequests = Math.max(mostRequests, n);
    }
    return new PassCosts(
        repos.size(),
        byRepo.size(),
        spans.size(),
        trips,
        mostRequests,
        mostTrips,
        worst,
        methods,
        other,
        reposOf.entrySet().stream()
            .collect(
                java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().size())));
  }

  /**
   * Which of {@code repos} a request (its XRPC method and raw query) reads, by key; null when none:
   * for {@link CountingProxy#gather}, to hold each pass's reads until they are all in.
   */
  public static java.util.function.BiFunction<String, String, String> repoOf(
      String ownerDid, List<IdleRepos.Repo> repos) {
    Map<String, String> keyOfName = names(repos);
    return (method, query) -> {
      CountingProxy.Span s = new CountingProxy.Span(method, query, 0, 0);
      return ownerDid.equals(s.parameter("repo")) ? keyOf(s, keyOfName) : null;
    };
  }

  private static Map<String, String> names(List<IdleRepos.Repo> repos) {
    Map<String, String> keyOfName = new HashMap<>();
    for (IdleRepos.Repo r : repos) {
      keyOfName.put(r.name(), r.key());
      // Keys by themselves, marked so no name can be taken for one.
      keyOfName.put("/" + r.key(), r.key());
    }
    return keyOfName;
  }

  /** The key of the repository a request reads, or null when it reads none of them. */
  private static String keyOf(CountingProxy.Span s, Map<String, String> keyOfName) {
    if (s.method().endsWith(".getRecord")
        && "dev.knotless.repo".equals(s.parameter("collection"))) {
      return keyOfName.get(s.parameter("rkey"));
    }
    String cursor = s.parameter("cursor");
    if (s.method().endsWith(".listRecords") && cursor != null && cursor.indexOf('/') > 0) {
      String key = cursor.substring(0, cursor.indexOf('/'));
      return keyOfName.containsKey("/" + key) ? key : null;
    }
    return null;
  }

  /** Requests per repository read. */
  public double requestsPerRepo() {
    return read == 0 ? 0 : (double) (requests - other.size()) / read;
  }

  /** Round trips per repository read. */
  public double tripsPerRepo() {
    return read == 0 ? 0 : (double) trips / read;
  }

  @Override
  public String toString() {
    return String.format(
        "%d of %d repositories read; %.2f requests and %.2f round trips each (most %d and %d);"
            + " %d requests in all, %d to no repository; %s",
        read,
        repos,
        requestsPerRepo(),
        tripsPerRepo(),
        mostRequests,
        mostTrips,
        requests,
        other.size(),
        byMethod);
  }
}
