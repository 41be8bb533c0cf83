-- Offline punches (DESIGN §9, worker app queue): a clock event may carry the time the phone
-- captured it and a client event id, sent later and possibly more than once.
--
-- clock_events.created_at stays the event's time (history, state, webhooks, ordering): for a
-- punch sent with a capture time it is that time (never later than the receipt); received_at is
-- when the server recorded it. Existing events were recorded when received.
ALTER TABLE timeclock.clock_events ADD COLUMN received_at timestamptz;
UPDATE timeclock.clock_events SET received_at = created_at;
ALTER TABLE timeclock.clock_events
  ALTER COLUMN received_at SET NOT NULL,
  ALTER COLUMN received_at SET DEFAULT date_trunc('milliseconds', clock_timestamp());
-- The capture time the device sent (NULL when it sent none: the event was captured when received).
ALTER TABLE timeclock.clock_events ADD COLUMN captured_at timestamptz;
-- The client's id of the punch (lower-case UUID), unique per worker: a replay never records a
-- second event.
ALTER TABLE timeclock.clock_events ADD COLUMN client_event_id uuid;
CREATE UNIQUE INDEX clock_events_client_event_key ON timeclock.clock_events (user_id, client_event_id)
  WHERE client_event_id IS NOT NULL;
-- Who sent it: the worker, or a manager clocking for them (NULL for events older than this column).
ALTER TABLE timeclock.clock_events ADD COLUMN recorded_by bigint REFERENCES timeclock.users (id) ON DELETE SET NULL;
-- Late: received more than CLOCK_LATE_AFTER_SECONDS after its capture. Managers review late
-- punches (who and when); implausible_gap marks one that raised a late_punch security alert.
ALTER TABLE timeclock.clock_events
  ADD COLUMN late            boolean NOT NULL DEFAULT false,
  ADD COLUMN implausible_gap boolean NOT NULL DEFAULT false,
  ADD COLUMN reviewed_at     timestamptz,
  ADD COLUMN reviewed_by     bigint REFERENCES timeclock.users (id) ON DELETE SET NULL,
  ADD CHECK (late OR NOT implausible_gap),
  ADD CHECK (late OR reviewed_at IS NULL);
CREATE INDEX clock_events_late_idx ON timeclock.clock_events (received_at DESC, id DESC) WHERE late;
-- The worker's own requests received in a time range (the "heard from while offline" check).
CREATE INDEX clock_events_user_received_idx ON timeclock.clock_events (user_id, received_at) WHERE recorded_by IS NOT NULL;
CREATE INDEX location_samples_user_received_idx ON timeclock.location_samples (user_id, received_at);

-- The answer given to each (worker, client event id): the first request that claims the pair
-- (primary key) decides it, in the transaction that records its outcome; every later request
-- with the pair gets the same answer (or 409 CLIENT_EVENT_ID_REUSED when its body differs).
-- `request` is the canonical body compared with a replay's; `status` and `reply` are the HTTP
-- status and either the 200 body or the refusal `{ code, detail, details }`. They are NULL only
-- inside the claiming transaction, never once it committed.
CREATE TABLE timeclock.clock_requests (
  user_id         bigint NOT NULL REFERENCES timeclock.users (id) ON DELETE CASCADE,
  client_event_id uuid NOT NULL,
  request         jsonb NOT NULL,
  status          smallint,
  reply           jsonb,
  event_id        bigint REFERENCES timeclock.clock_events (id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, client_event_id)
);

-- When a QR code was last deactivated (NULL while active): a punch captured before then, sent
-- later, still counts the code as active.
ALTER TABLE timeclock.qr_codes ADD COLUMN deactivated_at timestamptz;
UPDATE timeclock.qr_codes SET deactivated_at = updated_at WHERE NOT is_active;
