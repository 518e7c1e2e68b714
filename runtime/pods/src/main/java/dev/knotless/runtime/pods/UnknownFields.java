package dev.knotless.runtime.pods;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The fields of a Fabric8 model object its classes do not know. Fabric8 keeps them aside ({@code
 * additionalProperties}) instead of failing, and sends them on; the API server then drops them with
 * at most a warning, so a misspelt field of an operator's patch would silently do nothing.
 * Stateless. The chart's tests use it too, on every object a render makes.
 */
public final class UnknownFields {

  private UnknownFields() {}

  /** Paths of the unknown fields under {@code model}, such as {@code affinity.nodeAfinity}. */
  public static List<String> in(Object model) {
    List<String> found = new ArrayList<>();
    walk(model, "", found);
    return found;
  }

  private static void walk(Object o, String path, List<String> found) {
    if (o instanceof Collection<?> c) {
      int i = 0;
      for (Object e : c) {
        walk(e, path + "[" + i++ + "]", found);
      }
      return;
    }
    if (o instanceof Map<?, ?> m) {
      m.forEach((k, v) -> walk(v, path + "[" + k + "]", found));
      return;
    }
    if (o == null || !o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model.")) {
      return;
    }
    for (Method getter : o.getClass().getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || !getter.getName().startsWith("get")
          || getter.getDeclaringClass() == Object.class) {
        continue;
      }
      Object value = invoke(getter, o);
      if (getter.getName().equals("getAdditionalProperties")) {
        if (value instanceof Map<?, ?> extra) {
          extra.keySet().forEach(k -> found.add(join(path, String.valueOf(k))));
        }
        continue;
      }
      String name = getter.getName().substring(3);
      walk(value, join(path, Character.toLowerCase(name.charAt(0)) + name.substring(1)), found);
    }
  }

  private static Object invoke(Method getter, Object o) {
    try {
      return getter.invoke(o);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read " + getter + " of " + o.getClass(), e);
    }
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }
}
