// Where sign-in leads (`?next=`): a page of the app in the role's own part, never anywhere else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { landing } from '../src/auth/landing.ts';

test('next: a page of this app in the role’s own part, with its query and fragment', () => {
  assert.equal(landing('/history', 'worker'), '/history');
  assert.equal(landing('/manager/workers?q=ana&page=2#x', 'manager'), '/manager/workers?q=ana&page=2#x');
  assert.equal(landing('/manager', 'manager'), '/manager');
  // Dot segments are resolved inside the app.
  assert.equal(landing('/manager/../manager/qr', 'manager'), '/manager/qr');
});

test('no next, or the other role’s part, or the sign-in page itself: the role’s home', () => {
  assert.equal(landing(null, 'worker'), '/');
  assert.equal(landing('', 'manager'), '/manager');
  assert.equal(landing('/manager/workers', 'worker'), '/');
  assert.equal(landing('/history', 'manager'), '/manager');
  assert.equal(landing('/managers', 'manager'), '/manager');
  assert.equal(landing('/login?next=/history', 'worker'), '/');
});

test('anything that could leave the app is refused (no open redirect)', () => {
  for (const next of [
    'https://evil.example/', 'http://127.0.0.1:1/manager', '//evil.example/manager', '///evil.example', '/\\evil.example', '\\\\evil.example',
    'javascript:alert(1)', 'manager/workers', ' /history', '/\thistory', '/\n/evil.example', 'data:text/html,x',
  ]) {
    assert.equal(landing(next, 'worker'), '/', next);
    assert.equal(landing(next, 'manager'), '/manager', next);
  }
});
