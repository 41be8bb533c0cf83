-- Data scopes (issue 31, part 1; DESIGN §7.11; src/admin/kernel/data-scope.ts).
--
-- Each role has a scope; existing roles keep seeing every row (`all`). A `custom` scope names
-- its departments in role_departments.
ALTER TABLE admin.roles ADD COLUMN data_scope varchar(24) NOT NULL DEFAULT 'all'
  CHECK (data_scope IN ('all', 'department_and_below', 'department', 'custom', 'self'));

CREATE TABLE admin.role_departments (
  role_id        bigint NOT NULL REFERENCES admin.roles (id) ON DELETE CASCADE,
  department_id  bigint NOT NULL REFERENCES admin.departments (id) ON DELETE CASCADE,
  PRIMARY KEY (role_id, department_id)
);
CREATE INDEX role_departments_department_idx ON admin.role_departments (department_id);

-- An order belongs to the administrator who created it and to that administrator's department
-- when it was made (a later move of the administrator leaves their orders where they were made,
-- as a sale stays with the team that made it); a payment to its order's. The lists of a scoped
-- caller read the department's rows by time through these indexes.
ALTER TABLE admin.orders ADD COLUMN department_id bigint;
UPDATE admin.orders o SET department_id = a.department_id FROM admin.admins a WHERE a.id = o.created_by;
CREATE INDEX orders_department_created_at_idx ON admin.orders (department_id, created_at, id);
CREATE INDEX orders_created_by_created_at_idx ON admin.orders (created_by, created_at, id);

ALTER TABLE admin.payments ADD COLUMN created_by bigint, ADD COLUMN department_id bigint;
UPDATE admin.payments p SET created_by = o.created_by, department_id = o.department_id FROM admin.orders o WHERE o.id = p.order_id;
CREATE INDEX payments_department_created_at_idx ON admin.payments (department_id, created_at, id);
CREATE INDEX payments_created_by_created_at_idx ON admin.payments (created_by, created_at, id);
