package dev.knotless.runner.schedule;

import dev.knotless.runner.workflow.Superseded;

/** Run requests for tests, built one property at a time. */
final class Runs {
  private String id;
  private String owner = "did:plc:alice";
  private String repo;
  private String subject = "refs/heads/main";
  private SubjectKind kind = SubjectKind.REF;
  private String workflow = "ci";
  private String revision = "c1";
  private RunClass runClass = RunClass.MAIN;
  private Superseded superseded = Superseded.CANCEL;
  private boolean privateRepo;

  static Runs run(String id) {
    Runs r = new Runs();
    r.id = id;
    return r;
  }

  static Runs main(String id, String owner) {
    // Each in a repository of its own, so that tests of ranking supersede nothing.
    return run(id)
        .owner(owner)
        .repo(owner + "/r-" + id)
        .at("refs/heads/main", id)
        .cls(RunClass.MAIN);
  }

  static Runs pull(String id, String owner) {
    return run(id)
        .owner(owner)
        .repo(owner + "/r-" + id)
        .pullAt("at://" + owner + "/dev.knotless.pull/" + id, id)
        .cls(RunClass.OTHER);
  }

  Runs owner(String did) {
    this.owner = did;
    return this;
  }

  Runs repo(String repo) {
    this.repo = repo;
    return this;
  }

  Runs at(String ref, String commit) {
    this.subject = ref;
    this.kind = SubjectKind.REF;
    this.revision = commit;
    return this;
  }

  Runs pullAt(String pullUri, String headAndBase) {
    this.subject = pullUri;
    this.kind = SubjectKind.PULL;
    this.revision = headAndBase;
    return this;
  }

  Runs batch(String branch, String tipAndBase) {
    this.subject = "queue " + branch;
    this.kind = SubjectKind.BATCH;
    this.revision = tipAndBase;
    return this;
  }

  Runs workflow(String name) {
    this.workflow = name;
    return this;
  }

  Runs cls(RunClass c) {
    this.runClass = c;
    return this;
  }

  Runs finish() {
    this.superseded = Superseded.FINISH;
    return this;
  }

  Runs privateRepo() {
    this.privateRepo = true;
    return this;
  }

  RunRequest build() {
    return new RunRequest(
        id,
        owner,
        repo != null ? repo : owner + "/repo",
        subject,
        kind,
        workflow,
        revision,
        runClass,
        superseded,
        privateRepo);
  }
}
