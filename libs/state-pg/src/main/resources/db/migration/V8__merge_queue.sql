-- queue: each branch's merge queue the runner lands (batches under way, the half of a bisection
-- waiting, the last batch id), as the JSON object the state file keeps under the branch.
create table repo_queue (
  repo text not null references repo (repo) on delete cascade,
  ref text not null,
  state jsonb not null,
  primary key (repo, ref)
);

-- ejected: pulls ejected from the merge queue, to the head they were ejected at.
create table repo_ejected (
  repo text not null references repo (repo) on delete cascade,
  pull text not null,
  head text not null,
  primary key (repo, pull)
);
