-- The before and after values of what an operation changed (issue 31, part 4): per record the
-- route wrote, the fields whose value changed, secrets masked (src/admin/features/logs/
-- logs.changes.ts). Null: the route records no values (sign-out, a refused request).
ALTER TABLE admin.operation_logs ADD COLUMN changes jsonb;
