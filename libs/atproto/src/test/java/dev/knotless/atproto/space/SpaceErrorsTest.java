package dev.knotless.atproto.space;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.atproto.XrpcException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** What a command prints when a space is refused to its login. */
class SpaceErrorsTest {

  private static XrpcException refused() {
    return new XrpcException(
        "com.atproto.space.deleteSpace",
        403,
        SpaceErrors.LOGIN_REFUSED,
        "the PDS gave this login no service token for it (…): an app password reads no private"
            + " repository; log in with OAuth",
        null);
  }

  @Test
  void aRefusedLoginAnywhereAmongTheCausesNamesTheCommandThatLogsIn() {
    IOException wrapped =
        new IOException("could not delete alice.test/secret: no token", refused());
    assertEquals(
        "could not delete alice.test/secret: no token (`knotless login`)",
        SpaceErrors.withLogin(wrapped, "knotless login"));
  }

  @Test
  void aMessageThatNamesItAlreadyOrAnotherFailureIsLeftAsItIs() {
    IOException named = new IOException("x is private, and … (`knotless login`)", refused());
    assertEquals(named.getMessage(), SpaceErrors.withLogin(named, "knotless login"));
    IOException other =
        new IOException(
            "gone", new XrpcException("m", 403, SpaceErrors.NOT_MEMBER, "not a member", null));
    assertEquals("gone", SpaceErrors.withLogin(other, "knotless login"));
  }
}
