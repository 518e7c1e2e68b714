package dev.knotless.testing.chart;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Finds fields the fabric8 model did not recognise. fabric8 keeps them in {@code
 * additionalProperties} instead of failing, so a misspelt or misplaced field would otherwise pass
 * silently, and the API server would drop or refuse it at install time.
 */
final class UnknownFields {
  private UnknownFields() {}

  /** Paths such as {@code spec.template.spec.containers[0].securityContex}. */
  static List<String> in(Object model) {
    List<String> found = new ArrayList<>();
    walk(model, "", found);
    return found;
  }

  private static void walk(Object o, String path, List<String> found) {
    if (o == null) {
      return;
    }
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
    if (!o.getClass().getName().startsWith("io.fabric8.")) {
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
      walk(value, join(path, decapitalize(getter.getName().substring(3))), found);
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

  private static String decapitalize(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }
}
