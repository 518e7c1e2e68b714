package dev.knotless.run.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What keeps a service to one database stack (docs/distributed.md, "One owner per table"): its
 * classpath holds the JDBC pool (Agroal) and no reactive PostgreSQL client or Hibernate Reactive
 * beside it, and no source under its {@code adapter/db} speaks Mutiny. Read by each service's
 * {@code OneDatabaseStackTest}, which runs with its own runtime classpath.
 */
public final class DatabaseStack {
  /** A class of each stack a service must not carry beside JDBC, with what brings it. */
  private static final List<String[]> SECOND_STACKS =
      List.of(
          new String[] {
            "io.vertx.sqlclient.Pool", "a Vert.x SQL client (quarkus-reactive-*-client)"
          },
          new String[] {"io.vertx.pgclient.PgConnectOptions", "the reactive PostgreSQL client"},
          new String[] {"org.hibernate.reactive.mutiny.Mutiny", "Hibernate Reactive"});

  private DatabaseStack() {}

  /**
   * Asserts the one stack.
   *
   * @param mainSources the service's {@code src/main/java}
   */
  public static void assertJdbcOnly(Path mainSources) {
    assertTrue(loadable("io.agroal.api.AgroalDataSource"), "no JDBC pool (quarkus-agroal)");
    for (String[] stack : SECOND_STACKS) {
      assertFalse(loadable(stack[0]), stack[1] + " is on the classpath beside JDBC: " + stack[0]);
    }
    assertTrue(Files.isDirectory(mainSources), mainSources.toAbsolutePath() + " is not there");
    assertEquals(List.of(), reactiveDbSources(mainSources), "adapter/db sources importing Mutiny");
  }

  private static boolean loadable(String className) {
    try {
      Class.forName(className, false, DatabaseStack.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static List<String> reactiveDbSources(Path mainSources) {
    try (Stream<Path> files = Files.walk(mainSources)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> p.getParent().endsWith(Path.of("adapter", "db")))
          .filter(p -> read(p).contains("io.smallrye.mutiny"))
          .map(p -> mainSources.relativize(p).toString())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
