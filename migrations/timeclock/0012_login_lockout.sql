-- Sign-in lockout of workers and managers (issue 31, part 2: the password policy's
-- lockMaxFailures and lockSeconds), as the back office's admin.login_failures: failed sign-ins
-- per account name (existing or not, lower-cased), the count within the current window, when
-- that window ends, and, once the failure that reached the limit is counted, until when the name
-- is locked (so a lock holds whatever the limit becomes meanwhile, and the console lists locked
-- workers without knowing the limit). A sign-in reads the account and this row in one query.
-- Rows past their window mean nothing and are purged.
CREATE TABLE timeclock.login_failures (
  account_key   text PRIMARY KEY,
  failures      integer NOT NULL CHECK (failures > 0),
  ends_at       timestamptz NOT NULL,
  locked_until  timestamptz
);
CREATE INDEX login_failures_ends_idx ON timeclock.login_failures (ends_at);
