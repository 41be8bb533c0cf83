-- Token revocation by version (issue 27, item 18): every token carries its account's
-- `token_version` (the `tokenVersion` claim); a password change, disabling or deleting the
-- account adds one, which refuses every token issued before, whatever second it was issued in,
-- and re-enabling the account does not bring them back. Tokens issued before this migration
-- carry no version: they count as version 0 and are still bound by tokens_valid_after.
ALTER TABLE timeclock.users ADD COLUMN token_version integer NOT NULL DEFAULT 0;

-- The alert workflow (issue 27, item 6): managers acknowledge and resolve security alerts,
-- each step with who, when and an optional note. Existing alerts are open.
ALTER TABLE timeclock.security_alerts
  ADD COLUMN status           varchar(16) NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'acknowledged', 'resolved')),
  ADD COLUMN acknowledged_at  timestamptz,
  ADD COLUMN acknowledged_by  bigint REFERENCES timeclock.users (id) ON DELETE SET NULL,
  ADD COLUMN acknowledge_note varchar(1000),
  ADD COLUMN resolved_at      timestamptz,
  ADD COLUMN resolved_by      bigint REFERENCES timeclock.users (id) ON DELETE SET NULL,
  ADD COLUMN resolve_note     varchar(1000),
  ADD CHECK ((status = 'open') = (acknowledged_at IS NULL AND resolved_at IS NULL)),
  ADD CHECK ((status = 'resolved') = (resolved_at IS NOT NULL));
-- The default list (unresolved alerts) and the board's counts read only unresolved alerts.
CREATE INDEX security_alerts_unresolved_idx ON timeclock.security_alerts (created_at DESC, id DESC) WHERE status <> 'resolved';
