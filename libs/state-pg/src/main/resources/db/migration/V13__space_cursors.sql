-- Where the last answered listRepos of each private repository's space ended, so that the
-- reconciler given the repository's doorbell partition next asks from there rather than from the
-- start (which would ring its door once more for writes already passed). Written by whichever
-- reconciler holds the partition, after each answered poll that moved it.
create table space_cursor (
  owner_did  text not null,
  repo_key   text not null,
  space      text not null,
  cursor_text text not null,
  updated_at timestamptz not null default now(),
  primary key (owner_did, repo_key)
);
