-- Where each sign-in came from (issue 31, part 4; src/platform/geo/ip-location.ts): the kind of
-- address (loopback, private, public, unknown), and for a public one its country (ISO 3166-1
-- alpha-2) and city from the offline GeoLite-derived data shipped with the server. Rows written
-- before this migration stay `unknown` with no country: their addresses are not looked up again.
--
-- The columns' constant defaults add them without rewriting the table; the CHECK is added NOT
-- VALID (every existing row holds the default, which passes) so that no scan holds the table
-- locked while it is checked: new and updated rows are checked all the same.
ALTER TABLE admin.login_logs
  ADD COLUMN location_kind varchar(16) NOT NULL DEFAULT 'unknown',
  ADD COLUMN country       varchar(2) NOT NULL DEFAULT '',
  ADD COLUMN city          varchar(128) NOT NULL DEFAULT '';
ALTER TABLE admin.login_logs
  ADD CONSTRAINT login_logs_location_kind_check CHECK (location_kind IN ('loopback', 'private', 'public', 'unknown')) NOT VALID;

-- "Has this account signed in from this country before?", asked after each successful sign-in
-- from a public address (the new-country notice, src/admin/features/auth/auth.new-country.ts):
-- two probes of this index (the country, and any country at all), each ending at the first
-- earlier row it finds, over the account's located successes only.
CREATE INDEX login_logs_admin_country_idx ON admin.login_logs (admin_id, country) WHERE status = 1 AND country <> '';
