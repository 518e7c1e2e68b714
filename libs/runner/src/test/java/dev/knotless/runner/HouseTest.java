package dev.knotless.runner;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The runner's house as it is meant to stand: each module's packages on a floor of their own, each
 * importing only what stands below it, and no two packages importing each other. The floors, from
 * the ground up: the executors and the doorbells; live output, check filing and sealed secrets;
 * what a pass plans; the pass's parts; pulls and discovery; the merge queue; a repository's whole
 * pass; the all-in-one's command line and engine. runner-core's pure decisions sit below all.
 */
class HouseTest {

  /** The main classes of every module under {@code dev.knotless.runner}, read from their jars. */
  private static final JavaClasses RUNNER =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.knotless.runner");

  @Test
  void noTwoPackagesOfTheRunnerImportEachOther() {
    slices().matching("dev.knotless.runner.(**)").should().beFreeOfCycles().check(RUNNER);
  }

  @Test
  void everyPackageImportsOnlyWhatStandsBelowIt() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("engine")
        .definedBy("dev.knotless.runner.engine..", "dev.knotless.runner.cli..")
        .layer("repository pass")
        .definedBy("dev.knotless.runner.repopass..")
        .layer("merge queue")
        .definedBy("dev.knotless.runner.mergequeue..")
        .layer("pulls and discovery")
        .definedBy("dev.knotless.runner.pullpass..", "dev.knotless.runner.discover..")
        .layer("pass parts")
        .definedBy("dev.knotless.runner.pass..")
        .layer("plan")
        .definedBy("dev.knotless.runner.plan..")
        .layer("filing")
        .definedBy(
            "dev.knotless.runner.filing..",
            "dev.knotless.runner.sealed..",
            "dev.knotless.runner.liveoutput..")
        .layer("executors")
        .definedBy("dev.knotless.runner.exec..")
        .layer("doorbells")
        .definedBy("dev.knotless.runner.doorbell..")
        .whereLayer("engine")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("repository pass")
        .mayOnlyBeAccessedByLayers("engine")
        .whereLayer("merge queue")
        .mayOnlyBeAccessedByLayers("engine", "repository pass")
        .whereLayer("pulls and discovery")
        .mayOnlyBeAccessedByLayers("engine", "repository pass", "merge queue")
        .whereLayer("pass parts")
        .mayOnlyBeAccessedByLayers(
            "engine", "repository pass", "merge queue", "pulls and discovery")
        .whereLayer("plan")
        .mayOnlyBeAccessedByLayers(
            "engine", "repository pass", "merge queue", "pulls and discovery", "pass parts")
        .whereLayer("filing")
        .mayOnlyBeAccessedByLayers(
            "engine", "repository pass", "merge queue", "pulls and discovery", "pass parts", "plan")
        .whereLayer("executors")
        .mayOnlyBeAccessedByLayers(
            "engine",
            "repository pass",
            "merge queue",
            "pulls and discovery",
            "pass parts",
            "plan",
            "filing")
        .check(RUNNER);
  }
}
