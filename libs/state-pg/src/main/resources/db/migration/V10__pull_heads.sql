-- The repositories the open pulls into a watched repository come from, where they are other
-- repositories (forks): the reconcilers' pulls step writes what it found at every pass, and the
-- ingester follows them, so a push to a fork rings its base's door without waiting for a sweep.
-- A base's rows are replaced whole; a base with no such pull has none.
create table pull_head (
  base_owner_did text not null,
  base_repo_key  text not null,
  head_owner_did text not null,
  head_repo_key  text not null,
  updated_at     timestamptz not null default now(),
  primary key (base_owner_did, base_repo_key, head_owner_did, head_repo_key)
);
