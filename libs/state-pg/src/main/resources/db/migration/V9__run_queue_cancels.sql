-- A run one worker holds that a newer commit's run, filed by another worker, supersedes: the other
-- worker marks it here, and the worker holding it cancels it at its next heartbeat. A repository
-- moves between reconcilers as they start and stop, so the two runs can be on different workers.
alter table run_queue add column cancel_reason text;
