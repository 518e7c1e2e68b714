-- The runner account's OAuth session, shared by every replica of the services: one row per
-- account. A refresh token is single use, so a replica refreshes only while it holds the row's
-- lock and after reading the session another replica may have saved. seed_issued_at is when the
-- session last taken from the mounted Secret file was issued: a file issued later is a new login
-- by the operator and replaces the row; the same file read again by a restarting pod does not.
create table oauth_session (
  did            text primary key,
  session        text not null,
  seed_issued_at timestamptz not null,
  updated_at     timestamptz not null default now()
);
