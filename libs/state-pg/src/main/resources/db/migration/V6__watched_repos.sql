-- The repositories the runner watches, in one place: those the operator lists (the reconcilers
-- read the list and write them here, resolved) and, with discovery, those found naming the
-- runner. The ingester rings doors for exactly these; every reconciler takes a repository it is
-- rung for from here.
create table watched_repo (
  owner_did  text not null,
  repo_key   text not null,
  name       text not null,
  how        text not null check (how in ('listed', 'discovered')),
  updated_at timestamptz not null default now(),
  primary key (owner_did, repo_key)
);
