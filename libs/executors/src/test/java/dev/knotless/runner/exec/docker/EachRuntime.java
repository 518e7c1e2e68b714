package dev.knotless.runner.exec.docker;

import dev.knotless.testing.LocalDocker;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A docker test run twice: under the daemon's default runtime (runc, passed as {@link
 * DockerFixture#DEFAULT_RUNTIME}) and under gVisor's runsc ({@link LocalDocker#SANDBOX_RUNTIME}),
 * the runtime name passed as the test's one argument; {@link DockerFixture#settings(String)} turns
 * it into settings.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "runtime {0}")
@ValueSource(strings = {DockerFixture.DEFAULT_RUNTIME, LocalDocker.SANDBOX_RUNTIME})
@interface EachRuntime {}
