// The data of the route benchmark (bench/routes.ts): a realistic database for both services,
// generated inside the database (INSERT … SELECT over generate_series, one transaction per
// table), so that every list the benchmark reads has rows and its indexes are exercised. At
// scale 1: 100,000 administrators with roles and 1,000,000 orders with details and payments
// (npm run seed's generator), 10,000 time-clock workers with devices, 50 clock events and 20
// positions each, security alerts and checks; plus logs, notifications, attachments, live
// sessions, dictionaries and blacklist entries; orders owned by administrators in their
// departments, and an administrator scoped to a department and those below it. Idempotent-ish: a part already there (by its
// row count) is skipped. ANALYZE afterwards.
import { seedOrders } from '../src/admin/features/orders/orders.seed.ts';
import { hashPassword } from '../src/platform/auth/password.ts';
import type { Database } from '../src/platform/db/database.ts';
import { fmt } from './lib.ts';

export const WORKER_PASSWORD = 'Bench-worker-123';
/** The administrator whose data scope is a department and those below it (the sweep's scoped variants). */
export const SCOPED_USERNAME = 'bench_scoped';
export const SCOPED_PASSWORD = 'Bench-scoped-123';
/** The centre of every seeded site's fence (300 m circles a few km apart). */
export const SITE_CENTRE = { latitude: 48.8566, longitude: 2.3522 };

/** The device a seeded worker is bound to (as the seed's SQL writes it). */
export const deviceUuid = (workerId: number) => `android-${workerId.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

export interface SeedSizes {
  admins: number;
  orders: number;
  workers: number;
  operationLogs: number;
  loginLogs: number;
  systemLogs: number;
  attachments: number;
  notifications: number;
  sessions: number;
}

export function seedSizes(scale: number): SeedSizes {
  const n = (full: number, min: number) => Math.max(min, Math.round(full * scale));
  return {
    admins: n(100_000, 500),
    orders: n(1_000_000, 5_000),
    workers: n(10_000, 100),
    operationLogs: n(100_000, 1_000),
    loginLogs: n(100_000, 1_000),
    systemLogs: n(20_000, 200),
    attachments: n(10_000, 100),
    notifications: n(2_000, 50),
    sessions: n(1_000, 20),
  };
}

const count = async (db: Database, table: string, where = 'true') =>
  (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0]!.n;

/** Seeds what is missing; prints what it did and how long each part took. */
export async function seedRoutes(db: Database, sizes: SeedSizes, log: (line: string) => void): Promise<number> {
  const started = performance.now();
  const part = async (label: string, table: string, where: string, want: number, sql: () => string | Promise<string>) => {
    if ((await count(db, table, where)) >= want) return;
    const t = performance.now();
    const script = await sql();
    await db.transaction((tx) => tx.allowLongStatements().then(() => tx.script(script)));
    log(`  seeded ${label} in ${fmt((performance.now() - t) / 1000, 1)} s`);
  };

  // ------------------------------------------------------------------ back office
  await part('20 roles, 50 departments', 'admin.roles', "slug LIKE 'bench_role_%'", 20, () => `
    INSERT INTO admin.roles (name, slug, description, sort) SELECT 'Role ' || r, 'bench_role_' || r, 'benchmark role ' || r, r FROM generate_series(1, 20) r ON CONFLICT DO NOTHING;
    INSERT INTO admin.role_permissions (role_id, permission_id)
      SELECT r.id, p.id FROM admin.roles r JOIN admin.permissions p ON (p.id + r.id) % 3 = 0 WHERE r.slug LIKE 'bench_role_%' ON CONFLICT DO NOTHING;
    INSERT INTO admin.role_menus (role_id, menu_id)
      SELECT r.id, m.id FROM admin.roles r JOIN admin.menus m ON (m.id + r.id) % 2 = 0 WHERE r.slug LIKE 'bench_role_%' ON CONFLICT DO NOTHING;
    INSERT INTO admin.departments (parent_id, name, leader, phone, email, sort)
      SELECT CASE WHEN d <= 5 THEN 1 ELSE 1 + (d % 5) END, 'Department ' || d, 'Leader ' || d, '+33 1 00 00 00 ' || lpad(d::text, 2, '0'), 'dept' || d || '@example.com', d
      FROM generate_series(1, 50) d;`);
  await part(`${fmt(sizes.admins)} administrators with roles`, 'admin.admins', "username LIKE 'user%'", sizes.admins, () => `
    INSERT INTO admin.admins (username, password_hash, nickname, email, department_id, status, created_at, last_login_at)
    SELECT 'user' || g, 'not-a-hash', 'Nick ' || g, 'user' || g || '@example.com', 1 + g % 50, CASE WHEN g % 10 = 0 THEN 0 ELSE 1 END,
           now() - make_interval(mins => g), CASE WHEN g % 3 = 0 THEN now() - make_interval(secs => g) END
    FROM generate_series(1, ${sizes.admins}) g;
    INSERT INTO admin.admin_roles (admin_id, role_id)
    SELECT a.id, r.id FROM admin.admins a JOIN admin.roles r ON r.slug = 'bench_role_' || (1 + a.id % 20) WHERE a.username LIKE 'user%';`);
  await part(`${fmt(sizes.sessions)} live sessions`, 'admin.sessions', "token_jti LIKE 'bench-%'", sizes.sessions, () => `
    INSERT INTO admin.sessions (admin_id, token_jti, ip, user_agent, created_at, last_active_at, expires_at)
    SELECT a.id, 'bench-' || a.id, '10.0.' || (a.id % 250) || '.' || (a.id % 200), 'Mozilla/5.0 (bench)', now() - interval '1 hour', now() - make_interval(secs => a.id % 600), now() + interval '1 day'
    FROM (SELECT id FROM admin.admins WHERE username LIKE 'user%' ORDER BY id LIMIT ${sizes.sessions}) a;`);
  await part('200 dictionary entries', 'admin.dictionaries', "code LIKE 'bench_%'", 200, () => `
    INSERT INTO admin.dictionaries (parent_id, name, code, description, sort)
    SELECT 0, 'Bench type ' || t, 'bench_type_' || t, 'benchmark dictionary ' || t, 10 + t FROM generate_series(1, 20) t;
    INSERT INTO admin.dictionaries (parent_id, name, code, value, sort)
    SELECT d.id, 'Item ' || i, 'bench_item_' || i, 'value ' || i, i
    FROM admin.dictionaries d CROSS JOIN generate_series(1, 10) i WHERE d.code LIKE 'bench_type_%';`);
  // Addresses no benchmark client uses (they all come from 127.0.0.1).
  await part('1,000 blacklist entries', 'admin.blacklists', "remark = 'bench'", 1000, () => `
    INSERT INTO admin.blacklists (ip, remark, status, created_at)
    SELECT '10.200.' || (g / 250) || '.' || (1 + g % 250), 'bench', CASE WHEN g % 4 = 0 THEN 0 ELSE 1 END, now() - make_interval(mins => g)
    FROM generate_series(0, 999) g ON CONFLICT DO NOTHING;`);
  await part(`${fmt(sizes.operationLogs)} operation logs`, 'admin.operation_logs', "trace_id LIKE 'bench%'", sizes.operationLogs, () => `
    INSERT INTO admin.operation_logs (admin_id, username, module, action, method, route, path, ip, user_agent, params, status_code, duration_ms, trace_id, created_at)
    SELECT 1 + g % 1000, 'user' || (1 + g % 1000), (ARRAY['admins', 'roles', 'orders', 'menus', 'departments'])[1 + g % 5], (ARRAY['create', 'update', 'delete'])[1 + g % 3],
           (ARRAY['POST', 'PUT', 'DELETE'])[1 + g % 3], '/api/admin/orders/:id', '/api/admin/orders/' || g, '10.0.0.' || (g % 250), 'Mozilla/5.0 (bench)',
           jsonb_build_object('id', g), CASE WHEN g % 20 = 0 THEN 400 ELSE 200 END, g % 300, 'bench' || g, now() - make_interval(secs => g * 60)
    FROM generate_series(1, ${sizes.operationLogs}) g;`);
  await part(`${fmt(sizes.loginLogs)} login logs`, 'admin.login_logs', "user_agent = 'bench'", sizes.loginLogs, () => `
    INSERT INTO admin.login_logs (admin_id, username, ip, user_agent, status, reason, created_at)
    SELECT 1 + g % 1000, 'user' || (1 + g % 1000), '10.0.1.' || (g % 250), 'bench', CASE WHEN g % 7 = 0 THEN 0 ELSE 1 END,
           CASE WHEN g % 7 = 0 THEN 'bad_password' ELSE 'ok' END, now() - make_interval(secs => g * 60)
    FROM generate_series(1, ${sizes.loginLogs}) g;`);
  await part(`${fmt(sizes.systemLogs)} system logs`, 'admin.system_logs', "trace_id LIKE 'bench%'", sizes.systemLogs, () => `
    INSERT INTO admin.system_logs (level, message, trace_id, context, created_at)
    SELECT (ARRAY['error', 'warning', 'info', 'debug'])[1 + g % 4], 'benchmark log line ' || g, 'bench' || g, jsonb_build_object('n', g), now() - make_interval(secs => g * 120)
    FROM generate_series(1, ${sizes.systemLogs}) g;`);
  await part(`${fmt(sizes.attachments)} attachments`, 'admin.attachments', "stored_name LIKE 'bench%'", sizes.attachments, () => `
    INSERT INTO admin.attachments (type, original_name, stored_name, storage_key, extension, content_type, size, sha256, uploaded_by, created_at)
    SELECT 'image', 'photo-' || g || '.png', 'bench' || lpad(g::text, 12, '0') || '.png', 'bench/' || g || '.png', 'png', 'image/png', 1000 + g,
           encode(sha256(g::text::bytea), 'hex'), CASE WHEN g % 2 = 0 THEN 1 ELSE 2 + g % 1000 END, now() - make_interval(mins => g)
    FROM generate_series(1, ${sizes.attachments}) g;`);
  await part(`${fmt(sizes.notifications)} notifications`, 'admin.notifications', "kind = 'bench'", sizes.notifications, () => `
    INSERT INTO admin.notifications (title, content, kind, sender_id, created_at)
    SELECT 'Notice ' || g, 'Benchmark notification number ' || g, 'bench', 1, now() - make_interval(mins => g)
    FROM generate_series(1, ${sizes.notifications}) g;
    INSERT INTO admin.notification_recipients (admin_id, notification_id, read_at)
    SELECT 1, n.id, CASE WHEN n.id % 3 = 0 THEN now() END FROM admin.notifications n WHERE n.kind = 'bench'
    ON CONFLICT DO NOTHING;
    INSERT INTO admin.notification_recipients (admin_id, notification_id)
    SELECT a.id, n.id FROM admin.notifications n CROSS JOIN generate_series(0, 9) k JOIN admin.admins a ON a.id = 2 + (n.id * 10 + k) % ${sizes.admins}
    WHERE n.kind = 'bench' ON CONFLICT DO NOTHING;`);
  if ((await count(db, 'admin.orders')) < sizes.orders) {
    const t = performance.now();
    await seedOrders(db, { orders: sizes.orders - (await count(db, 'admin.orders')) });
    log(`  seeded ${fmt(sizes.orders)} orders with details and payments in ${fmt((performance.now() - t) / 1000, 1)} s`);
  }
  // Orders and payments made by the first 1,000 administrators, each in their department (data
  // scopes), and an administrator whose role reaches "Department 1" and the nine under it (about
  // a fifth of the rows): the sweep's scoped variants sign in as them.
  await part('orders and payments in departments', 'admin.orders', 'department_id IS NOT NULL', sizes.orders, () => `
    UPDATE admin.orders o SET created_by = a.id, department_id = a.department_id
      FROM admin.admins a WHERE a.username = 'user' || (1 + o.id % 1000);
    UPDATE admin.payments p SET created_by = o.created_by, department_id = o.department_id FROM admin.orders o WHERE o.id = p.order_id;`);
  await part('an administrator of a department and those below it', 'admin.admins', `username = '${SCOPED_USERNAME}'`, 1, async () => `
    INSERT INTO admin.roles (name, slug, description, data_scope) VALUES ('Department lead', 'bench_scoped', 'every permission, its department and below', 'department_and_below');
    INSERT INTO admin.role_permissions (role_id, permission_id) SELECT r.id, p.id FROM admin.roles r CROSS JOIN admin.permissions p WHERE r.slug = 'bench_scoped';
    INSERT INTO admin.role_menus (role_id, menu_id) SELECT r.id, m.id FROM admin.roles r CROSS JOIN admin.menus m WHERE r.slug = 'bench_scoped';
    INSERT INTO admin.admins (username, password_hash, nickname, department_id)
      SELECT '${SCOPED_USERNAME}', '${await hashPassword(SCOPED_PASSWORD)}', 'Department lead', d.id FROM admin.departments d WHERE d.name = 'Department 1';
    INSERT INTO admin.admin_roles (admin_id, role_id) SELECT a.id, r.id FROM admin.admins a, admin.roles r WHERE a.username = '${SCOPED_USERNAME}' AND r.slug = 'bench_scoped';`);

  // ------------------------------------------------------------------ time clock
  const { latitude: lat, longitude: lon } = SITE_CENTRE;
  await part('5 sites with fences, 10 active QR codes, 10 tags', 'timeclock.sites', "name LIKE 'Bench site%'", 5, () => `
    INSERT INTO timeclock.sites (name, fence)
    SELECT 'Bench site ' || s, jsonb_build_object('type', 'circle', 'center', jsonb_build_object('latitude', ${lat} + (s - 1) * 0.05, 'longitude', ${lon}), 'radiusMetres', 300)
    FROM generate_series(1, 5) s;
    INSERT INTO timeclock.qr_codes (id, name, site_id)
    SELECT gen_random_uuid(), s.name || ' gate ' || k, s.id FROM timeclock.sites s CROSS JOIN generate_series(1, 2) k WHERE s.name LIKE 'Bench site%';
    INSERT INTO timeclock.tags (name) SELECT 'bench-tag-' || t FROM generate_series(1, 10) t ON CONFLICT DO NOTHING;`);
  await part(`${fmt(sizes.workers)} workers with devices`, 'timeclock.users', "username LIKE 'bench_w%'", sizes.workers, async () => `
    INSERT INTO timeclock.users (username, password_hash, full_name, role, status, created_at)
    SELECT 'bench_w' || g, '${await hashPassword(WORKER_PASSWORD)}', 'Worker ' || g, 'worker', 1, now() - interval '200 days' + make_interval(mins => g)
    FROM generate_series(1, ${sizes.workers}) g;
    INSERT INTO timeclock.devices (user_id, device_uuid, registered_at, last_seen)
    SELECT id, 'android-' || lpad(to_hex(id), 8, '0') || '-0000-4000-8000-000000000000', created_at, now() - make_interval(secs => id % 3600) FROM timeclock.users WHERE username LIKE 'bench_w%';
    INSERT INTO timeclock.worker_tags (user_id, tag_id)
    SELECT u.id, t.id FROM timeclock.users u JOIN timeclock.tags t ON t.name = 'bench-tag-' || (1 + u.id % 10) WHERE u.username LIKE 'bench_w%';`);
  // 50 events per worker, in and out in turn over the last 100 days (the last a clock-out, 2 days ago), at the site of one of the QR codes.
  await part(`${fmt(sizes.workers * 50)} clock events`, 'timeclock.clock_events', 'true', sizes.workers * 50, () => `
    WITH w AS (
      SELECT u.id, row_number() OVER (ORDER BY u.id) AS k FROM timeclock.users u WHERE u.username LIKE 'bench_w%'
    ), q AS (
      SELECT q.id, q.site_id, row_number() OVER (ORDER BY q.id) - 1 AS k, count(*) OVER () AS n FROM timeclock.qr_codes q JOIN timeclock.sites s ON s.id = q.site_id WHERE s.name LIKE 'Bench site%'
    )
    INSERT INTO timeclock.clock_events (user_id, event_type, qr_code_id, site_id, latitude, longitude, created_at, received_at)
    SELECT w.id, CASE WHEN j % 2 = 0 THEN 'clock_in' ELSE 'clock_out' END, q.id, q.site_id, ${lat} + (q.site_id % 5) * 0.0001, ${lon},
           date_trunc('milliseconds', now() - interval '100 days' + j * interval '2 days' + (j % 2) * interval '8 hours' + make_interval(secs => w.k % 3600)),
           date_trunc('milliseconds', now() - interval '100 days' + j * interval '2 days' + (j % 2) * interval '8 hours' + make_interval(secs => w.k % 3600))
    FROM w CROSS JOIN generate_series(0, 49) j JOIN q ON q.k = w.k % q.n
    ORDER BY 7;
    INSERT INTO timeclock.worker_state (user_id, state, last_event_id, updated_at)
    SELECT DISTINCT ON (user_id) user_id, event_type, id, created_at FROM timeclock.clock_events ORDER BY user_id, created_at DESC, id DESC
    ON CONFLICT (user_id) DO UPDATE SET state = excluded.state, last_event_id = excluded.last_event_id, updated_at = excluded.updated_at;`);
  await part(`${fmt(sizes.workers * 20)} positions`, 'timeclock.location_samples', 'true', sizes.workers * 20, () => `
    INSERT INTO timeclock.location_samples (user_id, latitude, longitude, accuracy, source, recorded_at, received_at)
    SELECT u.id, ${lat} + (j % 7) * 0.0002, ${lon} - (j % 5) * 0.0002, 5 + j % 20, 'background', now() - make_interval(mins => (20 - j) * 30), now() - make_interval(mins => (20 - j) * 30)
    FROM timeclock.users u CROSS JOIN generate_series(1, 20) j WHERE u.username LIKE 'bench_w%';
    INSERT INTO timeclock.last_positions (user_id, latitude, longitude, accuracy, source, recorded_at, received_at)
    SELECT DISTINCT ON (user_id) user_id, latitude, longitude, accuracy, source, recorded_at, received_at FROM timeclock.location_samples ORDER BY user_id, recorded_at DESC
    ON CONFLICT (user_id) DO NOTHING;`);
  await part(`${fmt(sizes.workers * 2)} security alerts and ${fmt(sizes.workers)} checks`, 'timeclock.security_alerts', 'true', sizes.workers * 2, () => `
    INSERT INTO timeclock.security_alerts (user_id, alert_type, severity, details, created_at)
    SELECT u.id, (ARRAY['impossible_travel', 'implausible_accuracy', 'device_mismatch'])[1 + (u.id + j) % 3], (ARRAY['low', 'medium', 'high'])[1 + (u.id * j) % 3],
           jsonb_build_object('bench', true), now() - make_interval(hours => ((u.id + j * 13) % 2000)::int)
    FROM timeclock.users u CROSS JOIN generate_series(1, 2) j WHERE u.username LIKE 'bench_w%';
    INSERT INTO timeclock.security_checks (user_id, risk_score, risk_level, created_at)
    SELECT u.id, u.id % 60, CASE WHEN u.id % 60 < 30 THEN 'low' ELSE 'medium' END, now() - make_interval(mins => (u.id % 1000)::int)
    FROM timeclock.users u WHERE u.username LIKE 'bench_w%';`);

  const t = performance.now();
  await db.transaction((tx) => tx.allowLongStatements().then(() => tx.script('ANALYZE')));
  log(`  ANALYZE in ${fmt((performance.now() - t) / 1000, 1)} s`);
  return performance.now() - started;
}
