package dev.knotless.runner.state;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/** Checks and immutable copies shared by the state records. */
final class StateValues {
  private StateValues() {}

  static void requireText(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }

  static <K, V> Map<K, V> map(Map<K, V> m) {
    return m == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }

  static <K extends Comparable<? super K>, V> SortedMap<K, V> sorted(Map<K, V> m) {
    return Collections.unmodifiableSortedMap(m == null ? new TreeMap<>() : new TreeMap<>(m));
  }

  static <T> Set<T> set(Set<T> s) {
    return s == null ? Set.of() : Collections.unmodifiableSet(new LinkedHashSet<>(s));
  }

  static <T> List<T> list(List<T> l) {
    return l == null ? List.of() : List.copyOf(l);
  }
}
