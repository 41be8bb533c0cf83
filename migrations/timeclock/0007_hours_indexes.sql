-- Timesheets read a page of workers in name order and their punches of a period (measured with
-- bench/timesheets.ts on PostgreSQL, 10,000 workers and 1.3 million events):
-- - the workers' page sorted every worker by name (17–60 ms a page): an index in that order;
-- - the punches of 50 workers for a month sat on about 2,900 heap pages (events are stored in
--   time order): the per-worker index now carries the columns a timesheet reads, so the read is
--   an index-only scan (34–100 ms → 14–19 ms). It replaces the index of the same key.
CREATE INDEX users_worker_name_idx ON timeclock.users (lower(full_name), lower(username), id) WHERE role = 'worker';

DROP INDEX timeclock.clock_events_user_idx;
CREATE INDEX clock_events_user_idx ON timeclock.clock_events (user_id, created_at DESC, id DESC)
  INCLUDE (event_type, site_id, late, forced);
