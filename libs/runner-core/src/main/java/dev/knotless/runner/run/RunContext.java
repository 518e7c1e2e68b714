package dev.knotless.runner.run;

/**
 * What the runner tells a step about its run, as the {@code KNOTLESS_RUN_*} variables.
 *
 * @param repoLabel the repository's label, as given on the command line or found ({@code
 *     KNOTLESS_RUN_REPO})
 * @param ref the full ref: the pushed ref, a pull's head branch, a batch's base branch ({@code
 *     KNOTLESS_RUN_REF})
 * @param sha the commit: the pushed commit, a pull's head (not the merge commit checked out), a
 *     batch's tip ({@code KNOTLESS_RUN_SHA})
 * @param base the base tip of a pull's or batch's run, or null for a push ({@code
 *     KNOTLESS_RUN_BASE}, then empty)
 * @param outputsDir where the run leaves images for the check's outputs, as the step sees the path
 *     ({@code KNOTLESS_RUN_OUTPUTS})
 * @param workflow the workflow's name ({@code KNOTLESS_RUN_WORKFLOW})
 * @param checkKey the check record's key ({@code KNOTLESS_RUN_CHECK})
 * @param runId the runner's id for this run ({@code KNOTLESS_RUN_ID})
 */
public record RunContext(
    String repoLabel,
    String ref,
    String sha,
    String base,
    String outputsDir,
    String workflow,
    String checkKey,
    String runId) {}
