package dev.knotless.testing;

import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit extension behind {@link WithPds}: starts (or reuses) a {@link PdsInstance} before a
 * class's first test and resolves {@code PdsInstance} parameters.
 *
 * <p>A suite-scoped server is kept in the root context's store under its options, so it is shared
 * by every class asking for the same options and closed when the test JVM's run ends. A
 * class-scoped one is kept in the class's store and closed after the class. JUnit closes stored
 * {@link AutoCloseable} values itself. Stateless and thread-safe: the stores hold all state.
 */
public final class PdsExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(PdsExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    instance(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PdsInstance.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return instance(context);
  }

  private static PdsInstance instance(ExtensionContext context) {
    WithPds settings = settings(context);
    PdsOptions options =
        new PdsOptions(
            settings.rateLimits(),
            settings.blobUploadLimit(),
            List.of("alice", "bob"),
            settings.passwordSpaces());
    if (settings.scope() == WithPds.Scope.SUITE) {
      return context
          .getRoot()
          .getStore(NAMESPACE)
          .computeIfAbsent(options, PdsInstance::start, PdsInstance.class);
    }
    ExtensionContext owner = classContext(context);
    return owner
        .getStore(NAMESPACE)
        .computeIfAbsent(owner.getUniqueId(), id -> PdsInstance.start(options), PdsInstance.class);
  }

  /** The annotation on the test class, or on a class enclosing a nested one. */
  private static WithPds settings(ExtensionContext context) {
    for (Class<?> c = context.getRequiredTestClass(); c != null; c = c.getEnclosingClass()) {
      WithPds found = c.getAnnotation(WithPds.class);
      if (found != null) {
        return found;
      }
    }
    throw new ParameterResolutionException(
        context.getRequiredTestClass().getName() + " asks for a PdsInstance but is not @WithPds");
  }

  /** The context of the outermost class carrying the annotation, so nested classes share it. */
  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext found = null;
    for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
      if (c.getTestClass().map(t -> t.isAnnotationPresent(WithPds.class)).orElse(false)
          && c.getTestMethod().isEmpty()) {
        found = c;
      }
    }
    if (found == null) {
      throw new ParameterResolutionException(
          "no @WithPds class around " + context.getDisplayName());
    }
    return found;
  }
}
