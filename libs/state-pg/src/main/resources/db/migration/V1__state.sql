-- The runner's state (spec: "The state file"), one table per field, keyed by repository
-- (<owner did>/<repo key>). A row in repo marks a repository the runner has state for, even
-- when every field is empty, so its next pass is not a first watch.
create table repo (
  repo text primary key
);

-- repos: each ref's generation last run.
create table repo_ref (
  repo text not null references repo (repo) on delete cascade,
  ref text not null,
  generation bigint not null,
  primary key (repo, ref)
);

-- pulls: each open pull's head and base last run at, or passed over at.
create table repo_pull (
  repo text not null references repo (repo) on delete cascade,
  pull text not null,
  head text not null,
  base text not null,
  primary key (repo, pull)
);

-- reruns: the newest rerun request acted on.
create table repo_rerun (
  repo text primary key references repo (repo) on delete cascade,
  rkey text not null
);

-- asked: pulls asked for and not yet run.
create table repo_asked (
  repo text not null references repo (repo) on delete cascade,
  pull text not null,
  primary key (repo, pull)
);

-- asked_only: of those, the ones asked for only some workflows, by name.
create table repo_asked_only (
  repo text not null references repo (repo) on delete cascade,
  pull text not null,
  workflow text not null,
  primary key (repo, pull, workflow)
);

-- passed: trusted pull and batch runs that passed, for reuse, oldest first (at most 256).
create table repo_passed (
  repo text not null references repo (repo) on delete cascade,
  seq int not null,
  tree text not null,
  workflow text not null,
  check_uri text not null,
  subject text not null,
  primary key (repo, seq)
);

-- dropped: the workflows dropped at a stop, per subject, commit and base.
create table repo_dropped (
  repo text not null references repo (repo) on delete cascade,
  seq int not null,
  subject text not null,
  commit_id text not null,
  base text not null,
  workflows text[] not null,
  primary key (repo, seq)
);

-- wanted: the workflows asked for by name and not yet run, per ref, with their variables.
create table repo_wanted (
  repo text not null references repo (repo) on delete cascade,
  ref text not null,
  seq int not null,
  workflow text not null,
  variables jsonb not null,
  primary key (repo, ref, seq)
);

-- used: milliseconds of public repositories' steps per day, last 30 days.
create table repo_used (
  repo text not null references repo (repo) on delete cascade,
  day date not null,
  millis bigint not null,
  primary key (repo, day)
);

-- used_private: the same for private repositories.
create table repo_used_private (
  repo text not null references repo (repo) on delete cascade,
  day date not null,
  millis bigint not null,
  primary key (repo, day)
);

-- discovered: the repositories found naming the runner (the runner's own, not by repository).
create table runner_discovered (
  seq int primary key,
  repo text not null
);

-- invited: where the reading of invites ended; one row at most.
create table runner_invited (
  id int primary key check (id = 1),
  cursor_text text not null
);
