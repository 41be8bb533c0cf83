-- Forgotten clock-outs (issue 30): a site may say when it closes (local time, HH:MM in its
-- time zone); a session still open after it, or after the work rules' autoClockOutAfterMinutes,
-- is closed automatically by the sweep (origin 'auto'). The sweep records each reminder it sent
-- for a session once, keyed by the session's clock-in, so that no instance sends it twice.
ALTER TABLE timeclock.sites ADD COLUMN closes_at varchar(5) CHECK (closes_at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$');

CREATE TABLE timeclock.clock_reminders (
  event_id    bigint NOT NULL REFERENCES timeclock.clock_events (id) ON DELETE CASCADE,
  kind        varchar(32) NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_id, kind)
);

-- An automatic clock-out waits for a manager's review (reviewed_at, as late punches do).
CREATE INDEX clock_events_auto_idx ON timeclock.clock_events (created_at DESC, id DESC) WHERE origin = 'auto';
ALTER TABLE timeclock.clock_events DROP CONSTRAINT clock_events_check2;
ALTER TABLE timeclock.clock_events ADD CONSTRAINT clock_events_review_check CHECK (late OR origin = 'auto' OR reviewed_at IS NULL);
