-- Notifications the system sends are stored as message keys with their values (title_msg,
-- content_msg: `{"key": ..., "params": {...}}`, the form of the platform's Msg) and rendered in
-- each reader's language; title and content keep the English text (what a client that does not
-- know the keys shows, and what administrator-written notifications hold, with null keys).
-- `link` is the API path a notification points at (an export's download) and
-- `link_expires_at` when that link stops working; both null otherwise.

ALTER TABLE admin.notifications
  ADD COLUMN title_msg       jsonb,
  ADD COLUMN content_msg     jsonb,
  ADD COLUMN link            varchar(512),
  ADD COLUMN link_expires_at timestamptz;

-- System notifications stored before: their English text turned back into keys and values.
UPDATE admin.notifications n
SET title_msg = '{"key": "admin.notifications.system.exportFinishedTitle"}',
    content_msg = jsonb_build_object('key', 'admin.notifications.system.exportFinished', 'params', jsonb_build_object(
      'kind', CASE WHEN m[1] IN ('admins', 'orders') THEN jsonb_build_object('key', 'admin.notifications.system.exportKind.' || m[1]) ELSE to_jsonb(m[1]) END,
      'id', m[2]::bigint, 'rows', m[3]::bigint)),
    content = format('Your %s export #%s is ready: %s rows.', CASE m[1] WHEN 'admins' THEN 'administrators' ELSE m[1] END, m[2], m[3]),
    link = m[4],
    link_expires_at = nullif(m[5], '')::timestamptz
FROM (SELECT id, regexp_match(content, '^Your (\w+) export #(\d+) is ready: (\d+) rows\. Download it from (\S+/download)(?: until (\S+Z))?\.$') AS m
      FROM admin.notifications WHERE kind = 'export' AND title = 'Export finished' AND sender_id IS NULL) x
WHERE n.id = x.id AND x.m IS NOT NULL;

UPDATE admin.notifications n
SET title_msg = '{"key": "admin.notifications.system.exportFailedTitle"}',
    content_msg = jsonb_build_object('key', 'admin.notifications.system.exportFailed', 'params', jsonb_build_object(
      'kind', CASE WHEN m[1] IN ('admins', 'orders') THEN jsonb_build_object('key', 'admin.notifications.system.exportKind.' || m[1]) ELSE to_jsonb(m[1]) END,
      'id', m[2]::bigint, 'error', m[3]))
FROM (SELECT id, regexp_match(content, '^Your (\w+) export #(\d+) failed: (.*)$') AS m
      FROM admin.notifications WHERE kind = 'export' AND title = 'Export failed' AND sender_id IS NULL) x
WHERE n.id = x.id AND x.m IS NOT NULL;

UPDATE admin.notifications n
SET title_msg = '{"key": "admin.notifications.system.importFinishedTitle"}',
    content_msg = jsonb_build_object('key', 'admin.notifications.system.importFinished', 'params', jsonb_build_object(
      'total', m[1]::bigint, 'succeeded', m[2]::bigint, 'failed', m[3]::bigint, 'duplicates', m[4]::bigint))
FROM (SELECT id, regexp_match(content, '^(\d+) rows read: (\d+) orders imported, (\d+) failed \((\d+) duplicates\)\.$') AS m
      FROM admin.notifications WHERE kind = 'import' AND title = 'Order import finished' AND sender_id IS NULL) x
WHERE n.id = x.id AND x.m IS NOT NULL;

UPDATE admin.notifications n
SET title_msg = '{"key": "admin.notifications.system.importStoppedTitle"}',
    content_msg = jsonb_build_object('key', 'admin.notifications.system.importStopped', 'params', jsonb_build_object(
      'total', m[1]::bigint, 'succeeded', m[2]::bigint, 'failed', m[3]::bigint, 'reason', m[4]))
FROM (SELECT id, regexp_match(content, '^(\d+) rows read before it stopped: (\d+) orders imported, (\d+) failed\. (.*)$') AS m
      FROM admin.notifications WHERE kind = 'import' AND title = 'Order import stopped' AND sender_id IS NULL) x
WHERE n.id = x.id AND x.m IS NOT NULL;

UPDATE admin.notifications n
SET title_msg = '{"key": "admin.notifications.system.kickedTitle"}',
    content_msg = jsonb_build_object('key', CASE WHEN m[2] = 's' THEN 'admin.notifications.system.kickedMany' ELSE 'admin.notifications.system.kickedOne' END,
      'params', jsonb_build_object('username', m[1], 'ids', m[3]))
FROM (SELECT id, regexp_match(content, '^Administrator (.+) ended your session(s?) ([\d, ]+)\. Sign in again') AS m
      FROM admin.notifications WHERE kind = 'session' AND title = 'Signed out by an administrator' AND sender_id IS NULL) x
WHERE n.id = x.id AND x.m IS NOT NULL;

UPDATE admin.notifications n
SET title_msg = '{"key": "admin.notifications.system.passwordResetTitle"}',
    content_msg = jsonb_build_object('key', 'admin.notifications.system.passwordReset', 'params', jsonb_build_object('username', m[1]))
FROM (SELECT id, regexp_match(content, '^Administrator (.+) set a new password for your account') AS m
      FROM admin.notifications WHERE kind = 'security' AND title = 'Your password was reset' AND sender_id IS NULL) x
WHERE n.id = x.id AND x.m IS NOT NULL;
