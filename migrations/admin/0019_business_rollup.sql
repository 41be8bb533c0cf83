-- The business dashboard's daily rollup (issue 31, part 5; read by
-- src/admin/features/dashboard/dashboard.service.ts).
--
-- GET /dashboard/business adds up, for the days of its period, sums kept per calendar day of
-- the display time zone and per department: the orders by status, the paid payments by method,
-- the paid orders' details by product. Keyed by department, not by creator: a key with the
-- creator would be about as large as the orders themselves, while a data scope is a set of
-- departments (plus the caller's own orders, which the service reads from the orders).
-- department_id 0 stands for "none" (orders of creators without a department): a key column
-- cannot be null, and department ids start at 1; -1, in the products' table only, for "every
-- department" (see below).
--
-- The sums are kept in the transaction of every write by statement-level triggers with
-- transition tables, so a bulk write (an import's COPY, a seed batch, an UPDATE of many rows)
-- is one aggregated upsert per table, not one per row. Every upsert writes its keys in key
-- order, and the orders' sums are taken before the products' (a statement that changes
-- products without changing orders first locks the row of the paid orders of its days and
-- departments), payments' last, so two concurrent writers wait for each other instead of
-- deadlocking. A sum that falls to zero keeps its row (the reads skip such rows). An UPDATE
-- trigger fires on any updated column (PostgreSQL allows no column list with transition
-- tables); keys whose changes cancel out are not written.
--
-- The day is that of the time zone in business_rollup_zone, which the service sets at start-up
-- to DISPLAY_TIMEZONE, rebuilding the sums when it differs (business_rollup_rebuild, under an
-- advisory lock that the triggers share, so that instances starting together rebuild once and
-- writers wait meanwhile). This migration fills them in UTC, the default zone.

CREATE TABLE admin.business_rollup_zone (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  time_zone  text NOT NULL
);

-- Every order created adds to the row of its day, department and status, whose lock it then
-- holds until it commits: orders created at once in one department would wait for each other,
-- one commit at a time. So each database connection writes its own share of the sums, the
-- `slot` (business_rollup_slot: its process id modulo 8), and the reads add the slots up; a
-- slot's share can be negative (an order counted in one slot, cancelled through another).
-- Rows are updated in place often: room on the page for HOT updates.
CREATE TABLE admin.business_orders_daily (
  day            date NOT NULL,
  department_id  bigint NOT NULL,
  status         varchar(16) NOT NULL,
  slot           smallint NOT NULL,
  orders         integer NOT NULL,
  amount         numeric NOT NULL,
  PRIMARY KEY (day, department_id, status, slot)
) WITH (fillfactor = 70);

-- Paid payment records by the day they were written (created_at), their department and method.
CREATE TABLE admin.business_payments_daily (
  day                date NOT NULL,
  department_id      bigint NOT NULL,
  payment_method_id  bigint NOT NULL,
  payments           integer NOT NULL,
  amount             numeric NOT NULL,
  PRIMARY KEY (day, department_id, payment_method_id)
) WITH (fillfactor = 70);

-- Details of paid orders by the order's department and day. The product's name is part of the
-- key: the dashboard shows the greatest name a product has in the period, and a greatest value
-- cannot be taken back when a detail goes, a key can. With products in the key this table is
-- about as large as the paid details themselves (each department sells most products most
-- days), so it also keeps each day's sums over every department, department_id -1, which a
-- caller reaching every row reads (a day's products, not a day's products times departments),
-- and its key leads with the department and carries the sums, so that a scoped caller reads
-- its departments' days from the index alone.
CREATE TABLE admin.business_products_daily (
  department_id  bigint NOT NULL,
  day            date NOT NULL,
  product_id     bigint NOT NULL,
  product_name   varchar(200) NOT NULL,
  quantity       integer NOT NULL,
  revenue        numeric NOT NULL,
  PRIMARY KEY (department_id, day, product_id, product_name) INCLUDE (quantity, revenue)
);

-- What every trigger below does first: waits while the sums are rebuilt (business_rollup_rebuild
-- holds this lock exclusively; writers share it), then reads the zone their days are in.
CREATE FUNCTION admin.business_rollup_writer_zone() RETURNS text LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock_shared(hashtext('admin.business_rollup'));
  SELECT time_zone FROM admin.business_rollup_zone;
$$;

-- This connection's share of the orders' sums (see business_orders_daily).
CREATE FUNCTION admin.business_rollup_slot() RETURNS smallint LANGUAGE sql AS $$
  SELECT (pg_backend_pid() % 8)::smallint;
$$;

CREATE FUNCTION admin.business_rollup_orders() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tz text := admin.business_rollup_writer_zone();
  own_slot smallint := admin.business_rollup_slot();
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- (A new order's details come in a later statement, or later in this one: their trigger adds them.)
    INSERT INTO admin.business_orders_daily AS r (day, department_id, status, slot, orders, amount)
    SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), status, own_slot, count(*), sum(amount)
    FROM new_orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (day, department_id, status, slot) DO UPDATE SET orders = r.orders + excluded.orders, amount = r.amount + excluded.amount;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO admin.business_orders_daily AS r (day, department_id, status, slot, orders, amount)
    SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), status, own_slot, -count(*), -sum(amount)
    FROM old_orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (day, department_id, status, slot) DO UPDATE SET orders = r.orders + excluded.orders, amount = r.amount + excluded.amount;
  ELSE
    INSERT INTO admin.business_orders_daily AS r (day, department_id, status, slot, orders, amount)
    SELECT day, department_id, status, own_slot, sum(n), sum(amount)
    FROM (
      SELECT (created_at AT TIME ZONE tz)::date AS day, coalesce(department_id, 0) AS department_id, status, 1 AS n, amount FROM new_orders
      UNION ALL
      SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), status, -1, -amount FROM old_orders
    ) c
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(amount) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (day, department_id, status, slot) DO UPDATE SET orders = r.orders + excluded.orders, amount = r.amount + excluded.amount;
    -- An order paid or no longer paid, or a paid one moved to another day or department, moves its details.
    WITH moved AS (
      SELECT o.id, o.status = 'paid' AS was_paid, (o.created_at AT TIME ZONE tz)::date AS old_day, coalesce(o.department_id, 0) AS old_department,
             n.status = 'paid' AS is_paid, (n.created_at AT TIME ZONE tz)::date AS new_day, coalesce(n.department_id, 0) AS new_department
      FROM old_orders o JOIN new_orders n ON n.id = o.id
      WHERE (o.status = 'paid' OR n.status = 'paid')
        AND (o.status IS DISTINCT FROM n.status OR o.created_at <> n.created_at OR coalesce(o.department_id, 0) <> coalesce(n.department_id, 0))
    )
    INSERT INTO admin.business_products_daily AS r (department_id, day, product_id, product_name, quantity, revenue)
    SELECT coalesce(department_id, -1), day, product_id, product_name, sum(quantity), sum(revenue)
    FROM (
      SELECT m.old_department AS department_id, m.old_day AS day, d.product_id, d.product_name, -d.quantity AS quantity, -(d.price * d.quantity) AS revenue
      FROM moved m JOIN admin.order_details d ON d.order_id = m.id WHERE m.was_paid
      UNION ALL
      SELECT m.new_department, m.new_day, d.product_id, d.product_name, d.quantity, d.price * d.quantity
      FROM moved m JOIN admin.order_details d ON d.order_id = m.id WHERE m.is_paid
    ) c
    GROUP BY GROUPING SETS ((department_id, day, product_id, product_name), (day, product_id, product_name))
    HAVING sum(quantity) <> 0 OR sum(revenue) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (department_id, day, product_id, product_name) DO UPDATE SET quantity = r.quantity + excluded.quantity, revenue = r.revenue + excluded.revenue;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION admin.business_rollup_details() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tz text := admin.business_rollup_writer_zone();
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- (A pending order's details add nothing: they count once it is paid. An import writes its
    -- orders before their details, so it holds the orders' rows already.)
    INSERT INTO admin.business_products_daily AS r (department_id, day, product_id, product_name, quantity, revenue)
    SELECT coalesce(department_id, -1), day, product_id, product_name, sum(quantity), sum(revenue)
    FROM (
      SELECT coalesce(o.department_id, 0) AS department_id, (o.created_at AT TIME ZONE tz)::date AS day, d.product_id, d.product_name, d.quantity, d.price * d.quantity AS revenue
      FROM new_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid'
    ) c
    GROUP BY GROUPING SETS ((department_id, day, product_id, product_name), (day, product_id, product_name))
    HAVING sum(quantity) <> 0 OR sum(revenue) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (department_id, day, product_id, product_name) DO UPDATE SET quantity = r.quantity + excluded.quantity, revenue = r.revenue + excluded.revenue;
    RETURN NULL;
  END IF;

  -- The orders service deletes an order's details before the order: take this connection's
  -- row of the paid orders of their days and departments first (an upsert of nothing, which
  -- locks it, made if missing), as every other writer takes the orders' rows before the products'.
  INSERT INTO admin.business_orders_daily AS r (day, department_id, status, slot, orders, amount)
  SELECT DISTINCT (o.created_at AT TIME ZONE tz)::date, coalesce(o.department_id, 0), 'paid', admin.business_rollup_slot(), 0, 0
  FROM old_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid' ORDER BY 1, 2
  ON CONFLICT (day, department_id, status, slot) DO UPDATE SET orders = r.orders;

  IF TG_OP = 'DELETE' THEN
    INSERT INTO admin.business_products_daily AS r (department_id, day, product_id, product_name, quantity, revenue)
    SELECT coalesce(department_id, -1), day, product_id, product_name, sum(quantity), sum(revenue)
    FROM (
      SELECT coalesce(o.department_id, 0) AS department_id, (o.created_at AT TIME ZONE tz)::date AS day, d.product_id, d.product_name, -d.quantity AS quantity, -(d.price * d.quantity) AS revenue
      FROM old_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid'
    ) c
    GROUP BY GROUPING SETS ((department_id, day, product_id, product_name), (day, product_id, product_name))
    HAVING sum(quantity) <> 0 OR sum(revenue) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (department_id, day, product_id, product_name) DO UPDATE SET quantity = r.quantity + excluded.quantity, revenue = r.revenue + excluded.revenue;
  ELSE
    INSERT INTO admin.business_products_daily AS r (department_id, day, product_id, product_name, quantity, revenue)
    SELECT coalesce(department_id, -1), day, product_id, product_name, sum(quantity), sum(revenue)
    FROM (
      SELECT coalesce(o.department_id, 0) AS department_id, (o.created_at AT TIME ZONE tz)::date AS day, d.product_id, d.product_name, d.quantity, d.revenue
      FROM (
        SELECT order_id, product_id, product_name, quantity, price * quantity AS revenue FROM new_details
        UNION ALL
        SELECT order_id, product_id, product_name, -quantity, -(price * quantity) FROM old_details
      ) d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid'
    ) c
    GROUP BY GROUPING SETS ((department_id, day, product_id, product_name), (day, product_id, product_name))
    HAVING sum(quantity) <> 0 OR sum(revenue) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (department_id, day, product_id, product_name) DO UPDATE SET quantity = r.quantity + excluded.quantity, revenue = r.revenue + excluded.revenue;
  END IF;
  RETURN NULL;
END $$;

-- A paid order's details leave the products' sums before the order goes: deleting it deletes
-- them by its foreign key's cascade, whose statement runs after the order is gone, when the
-- order's day, department and status can no longer be read. (Row by row, as the cascade itself;
-- the orders service deletes the details first, and then this finds none.)
CREATE FUNCTION admin.business_rollup_paid_order_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tz text := admin.business_rollup_writer_zone();
  order_day date := (OLD.created_at AT TIME ZONE tz)::date;
  order_department bigint := coalesce(OLD.department_id, 0);
BEGIN
  INSERT INTO admin.business_orders_daily AS r (day, department_id, status, slot, orders, amount)
  VALUES (order_day, order_department, 'paid', admin.business_rollup_slot(), 0, 0)
  ON CONFLICT (day, department_id, status, slot) DO UPDATE SET orders = r.orders;
  INSERT INTO admin.business_products_daily AS r (department_id, day, product_id, product_name, quantity, revenue)
  SELECT coalesce(department_id, -1), day, product_id, product_name, sum(quantity), sum(revenue)
  FROM (
    SELECT order_department AS department_id, order_day AS day, product_id, product_name, -quantity AS quantity, -(price * quantity) AS revenue
    FROM admin.order_details WHERE order_id = OLD.id
  ) c
  GROUP BY GROUPING SETS ((department_id, day, product_id, product_name), (day, product_id, product_name))
  HAVING sum(quantity) <> 0 OR sum(revenue) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (department_id, day, product_id, product_name) DO UPDATE SET quantity = r.quantity + excluded.quantity, revenue = r.revenue + excluded.revenue;
  RETURN OLD;
END $$;

CREATE FUNCTION admin.business_rollup_payments() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tz text := admin.business_rollup_writer_zone();
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO admin.business_payments_daily AS r (day, department_id, payment_method_id, payments, amount)
    SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), payment_method_id, count(*), sum(amount)
    FROM new_payments WHERE status = 'paid' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (day, department_id, payment_method_id) DO UPDATE SET payments = r.payments + excluded.payments, amount = r.amount + excluded.amount;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO admin.business_payments_daily AS r (day, department_id, payment_method_id, payments, amount)
    SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), payment_method_id, -count(*), -sum(amount)
    FROM old_payments WHERE status = 'paid' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (day, department_id, payment_method_id) DO UPDATE SET payments = r.payments + excluded.payments, amount = r.amount + excluded.amount;
  ELSE
    INSERT INTO admin.business_payments_daily AS r (day, department_id, payment_method_id, payments, amount)
    SELECT day, department_id, payment_method_id, sum(n), sum(amount)
    FROM (
      SELECT (created_at AT TIME ZONE tz)::date AS day, coalesce(department_id, 0) AS department_id, payment_method_id, 1 AS n, amount
      FROM new_payments WHERE status = 'paid'
      UNION ALL
      SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), payment_method_id, -1, -amount
      FROM old_payments WHERE status = 'paid'
    ) c
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(amount) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (day, department_id, payment_method_id) DO UPDATE SET payments = r.payments + excluded.payments, amount = r.amount + excluded.amount;
  END IF;
  RETURN NULL;
END $$;

-- TRUNCATE deletes no rows one by one: the sums of the emptied table go with it.
CREATE FUNCTION admin.business_rollup_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM admin.business_rollup_writer_zone();
  IF TG_TABLE_NAME = 'orders' THEN
    DELETE FROM admin.business_orders_daily;
    DELETE FROM admin.business_products_daily;
  ELSIF TG_TABLE_NAME = 'order_details' THEN
    DELETE FROM admin.business_products_daily;
  ELSE
    DELETE FROM admin.business_payments_daily;
  END IF;
  RETURN NULL;
END $$;

-- The sums computed afresh from the orders, details and payments, for days of the zone `tz`,
-- which becomes the rollup's zone. Under the rollup's lock, held until the caller's transaction
-- ends: it waits for the writers whose triggers ran, and writers' triggers wait for it (readers
-- go on, reading the former sums). The rows of a writer whose trigger waits are not read here:
-- uncommitted; its trigger adds them afterwards, in the new zone.
CREATE FUNCTION admin.business_rollup_rebuild(tz text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('admin.business_rollup'));
  INSERT INTO admin.business_rollup_zone (time_zone) VALUES (tz)
  ON CONFLICT (only_row) DO UPDATE SET time_zone = excluded.time_zone;
  DELETE FROM admin.business_orders_daily;
  DELETE FROM admin.business_payments_daily;
  DELETE FROM admin.business_products_daily;
  INSERT INTO admin.business_orders_daily (day, department_id, status, slot, orders, amount)
  SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), status, 0, count(*), sum(amount)
  FROM admin.orders GROUP BY 1, 2, 3;
  INSERT INTO admin.business_payments_daily (day, department_id, payment_method_id, payments, amount)
  SELECT (created_at AT TIME ZONE tz)::date, coalesce(department_id, 0), payment_method_id, count(*), sum(amount)
  FROM admin.payments WHERE status = 'paid' GROUP BY 1, 2, 3;
  INSERT INTO admin.business_products_daily (department_id, day, product_id, product_name, quantity, revenue)
  SELECT coalesce(department_id, -1), day, product_id, product_name, sum(quantity), sum(revenue)
  FROM (
    SELECT coalesce(o.department_id, 0) AS department_id, (o.created_at AT TIME ZONE tz)::date AS day, d.product_id, d.product_name, d.quantity, d.price * d.quantity AS revenue
    FROM admin.order_details d JOIN admin.orders o ON o.id = d.order_id WHERE o.status = 'paid'
  ) c
  GROUP BY GROUPING SETS ((department_id, day, product_id, product_name), (day, product_id, product_name));
END $$;

CREATE TRIGGER business_rollup_insert AFTER INSERT ON admin.orders
  REFERENCING NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_orders();
CREATE TRIGGER business_rollup_update AFTER UPDATE ON admin.orders
  REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_orders();
CREATE TRIGGER business_rollup_delete AFTER DELETE ON admin.orders
  REFERENCING OLD TABLE AS old_orders FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_orders();
CREATE TRIGGER business_rollup_truncate AFTER TRUNCATE ON admin.orders
  FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_truncated();
CREATE TRIGGER business_rollup_paid_order_delete BEFORE DELETE ON admin.orders
  FOR EACH ROW WHEN (OLD.status = 'paid') EXECUTE FUNCTION admin.business_rollup_paid_order_deleted();

CREATE TRIGGER business_rollup_insert AFTER INSERT ON admin.order_details
  REFERENCING NEW TABLE AS new_details FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_details();
CREATE TRIGGER business_rollup_update AFTER UPDATE ON admin.order_details
  REFERENCING OLD TABLE AS old_details NEW TABLE AS new_details FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_details();
CREATE TRIGGER business_rollup_delete AFTER DELETE ON admin.order_details
  REFERENCING OLD TABLE AS old_details FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_details();
CREATE TRIGGER business_rollup_truncate AFTER TRUNCATE ON admin.order_details
  FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_truncated();

CREATE TRIGGER business_rollup_insert AFTER INSERT ON admin.payments
  REFERENCING NEW TABLE AS new_payments FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_payments();
CREATE TRIGGER business_rollup_update AFTER UPDATE ON admin.payments
  REFERENCING OLD TABLE AS old_payments NEW TABLE AS new_payments FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_payments();
CREATE TRIGGER business_rollup_delete AFTER DELETE ON admin.payments
  REFERENCING OLD TABLE AS old_payments FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_payments();
CREATE TRIGGER business_rollup_truncate AFTER TRUNCATE ON admin.payments
  FOR EACH STATEMENT EXECUTE FUNCTION admin.business_rollup_truncated();

SELECT admin.business_rollup_rebuild('UTC');
