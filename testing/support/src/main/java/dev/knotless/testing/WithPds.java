package dev.knotless.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real reference PDS. Test constructors, lifecycle methods and test
 * methods receive the {@link PdsInstance} as a parameter.
 *
 * <pre>{@code
 * @WithPds
 * class PushIT {
 *   @Test
 *   void aPushLands(PdsInstance pds) {
 *     Account owner = pds.createAccount("owner");
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>In {@link Scope#SUITE} scope (the default) every class with the same options shares one server
 * for the whole JVM, so tests must not depend on a fresh server: create accounts with {@link
 * PdsInstance#createAccount} rather than writing to alice or bob.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(PdsExtension.class)
public @interface WithPds {
  /** Turn the PDS's rate limits on, as bsky.social has them. */
  boolean rateLimits() default false;

  /** The blob upload limit in bytes; 0 keeps the PDS default (5 MiB). */
  long blobUploadLimit() default 0;

  /**
   * Give password sessions service tokens for {@code com.atproto.space.*}, which the harness
   * refuses them by default, as a PDS with spaces will ({@link PdsOptions#passwordSpaces}). Only
   * for a test that still reads a private repository with a password.
   */
  boolean passwordSpaces() default false;

  /** Whether the server is shared across test classes or started for this class alone. */
  Scope scope() default Scope.SUITE;

  /** How long one server lives. */
  enum Scope {
    /** One server per distinct set of options for the whole test JVM, stopped at its end. */
    SUITE,
    /** A server of this class's own, stopped after its last test. */
    CLASS
  }
}
