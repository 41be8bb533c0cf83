// The orders screen's logic without a browser: money in integer cents from the typed text, the
// 3-month limit of the date range (as the server counts it), and the import's error rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addMonthsDay, centsText, centsToNumber, importErrorRows, importOutcome, lineCents, numberToCents, orderTotal, outsideRange,
  parseCents, parseQuantity, rangeTooLong,
} from '../src/screens/orders/logic.ts';
import { configFromRows, rowsFromConfig } from '../src/screens/payment-methods/config.ts';

test('money is read from the typed text into integer cents, never through floats', () => {
  assert.equal(parseCents('12'), 1200n);
  assert.equal(parseCents('12.5'), 1250n);
  assert.equal(parseCents(' 12.50 '), 1250n);
  assert.equal(parseCents('12.'), 1200n);
  assert.equal(parseCents('0.1'), 10n);
  assert.equal(parseCents('9999999999.99'), 999_999_999_999n);
  for (const bad of ['', '-1', '1.234', 'abc', '1e3', '10000000000', '.5', '1,5', undefined]) assert.equal(parseCents(bad), null, String(bad));
  assert.equal(parseQuantity('3'), 3);
  for (const bad of ['0', '-1', '1.5', '', '2147483648', '03']) assert.equal(parseQuantity(bad), null, bad);
  assert.equal(centsText(5n), '0.05');
  assert.equal(centsText(123456n), '1234.56');
  // 0.1 + 0.2 in floats is 0.30000000000000004; in cents it is 30.
  const { cents, complete } = orderTotal([{ price: '0.1', quantity: '1' }, { price: '0.2', quantity: '1' }]);
  assert.deepEqual([cents, complete], [30n, true]);
  assert.equal(centsToNumber(cents), 0.3);
  // 19.99 × 3 = 59.97 exactly (19.99 * 3 in floats is 59.97000000000001).
  assert.equal(lineCents({ price: '19.99', quantity: '3' }), 5997n);
  assert.equal(centsToNumber(orderTotal([{ price: '19.99', quantity: '3' }, { price: '1.01', quantity: '7' }]).cents), 67.04);
  assert.equal(numberToCents(1234.5), 123450n);
  // An unfinished line leaves the total incomplete (shown, not sent).
  assert.deepEqual(orderTotal([{ price: '2', quantity: '2' }, { price: '', quantity: '1' }]), { cents: 400n, complete: false });
  assert.deepEqual(orderTotal([]), { cents: 0n, complete: false });
  assert.equal(orderTotal([{ price: '9999999999.99', quantity: '2' }]).complete, false, 'beyond numeric(12,2)');
});

test('a date range is at most 3 calendar months, as the server counts them', () => {
  assert.equal(addMonthsDay('2026-03-01', 3), '2026-06-01');
  assert.equal(addMonthsDay('2025-11-30', 3), '2026-02-28');
  assert.equal(addMonthsDay('2023-11-30', 3), '2024-02-29');
  assert.equal(addMonthsDay('2026-01-31', -3), '2025-10-31');
  assert.equal(addMonthsDay('2026-12-15', 1), '2027-01-15');
  // 03-01 00:00:00 … 05-31 23:59:59 is allowed; up to 06-01 23:59:59 is more than 3 months.
  assert.equal(rangeTooLong('2026-03-01', '2026-05-31'), false);
  assert.equal(rangeTooLong('2026-03-01', '2026-06-01'), true);
  assert.equal(rangeTooLong('2025-11-30', '2026-02-27'), false);
  assert.equal(rangeTooLong('2025-11-30', '2026-02-28'), true);
  assert.equal(rangeTooLong('2026-05-01', '2026-05-01'), false);
  // In the picker, whichever end was picked first.
  assert.equal(outsideRange('2026-06-01', '2026-03-01'), true);
  assert.equal(outsideRange('2026-05-31', '2026-03-01'), false);
  assert.equal(outsideRange('2026-03-01', '2026-06-01'), true);
  assert.equal(outsideRange('2026-03-02', '2026-06-01'), false);
});

test('an import reply becomes a summary and error rows by row number', () => {
  const summary = {
    total: 4, succeeded: 2, failed: 2, duplicates: 0, errors_truncated: false,
    errors: [
      { row: 5, request_id: 'r-4', reason: 'amount 3.00 does not equal the sum of price × quantity (4.00)' },
      { row: 3, request_id: null, reason: 'request_id is required' },
    ],
  };
  assert.deepEqual(importErrorRows(summary), [
    { key: '3-1', row: 3, requestId: '—', reason: 'request_id is required' },
    { key: '5-0', row: 5, requestId: 'r-4', reason: 'amount 3.00 does not equal the sum of price × quantity (4.00)' },
  ]);
  assert.equal(importOutcome(summary), 'warning');
  assert.equal(importOutcome({ total: 2, succeeded: 2, failed: 0 }), 'success');
  assert.equal(importOutcome({ total: 2, succeeded: 0, failed: 2 }), 'error');
  assert.equal(importOutcome({ total: 0, succeeded: 0, failed: 0 }), 'error');
});

test('a payment method config: masked secrets stay masked unless re-entered', () => {
  const rows = rowsFromConfig({ app_id: 'wx1', api_key: '******', timeout: 30, nested: { a: 1 } });
  assert.deepEqual(rows.map((r) => [r.key, r.value, r.masked, r.json]), [
    ['app_id', 'wx1', false, false], ['api_key', '', true, false], ['timeout', '30', false, true], ['nested', '{"a":1}', false, true],
  ]);
  assert.deepEqual(configFromRows(rows), { ok: true, config: { app_id: 'wx1', api_key: '******', timeout: 30, nested: { a: 1 } } });
  // Re-entered: the new value is sent.
  assert.deepEqual(configFromRows([{ ...rows[1]!, value: 'new-secret' }]), { ok: true, config: { api_key: 'new-secret' } });
  assert.equal(configFromRows([{ key: 'a', value: '1', masked: false, json: false }, { key: 'a', value: '2', masked: false, json: false }]).ok, false);
  assert.equal(configFromRows([{ key: 'n', value: '{oops', masked: false, json: true }]).ok, false);
  assert.deepEqual(configFromRows([{ key: ' ', value: '', masked: false, json: false }]), { ok: true, config: {} });
});
