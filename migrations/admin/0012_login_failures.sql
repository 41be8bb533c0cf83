-- Failed sign-ins per account name (existing or not, lower-cased): the count within the
-- current window, and when that window (or, once the limit is reached, the lock) ends. It sits
-- next to the accounts so that a sign-in reads the account and its lock state in one query,
-- and a failure is counted in the statement that writes its login-log row. Rows past their
-- window mean nothing and are purged.
CREATE TABLE admin.login_failures (
  account_key  text PRIMARY KEY,
  failures     integer NOT NULL CHECK (failures > 0),
  ends_at      timestamptz NOT NULL
);
CREATE INDEX login_failures_ends_idx ON admin.login_failures (ends_at);
