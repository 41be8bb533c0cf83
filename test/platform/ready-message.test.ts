// The message printed once the server is ready (ready-message.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { framed, readyLines } from '../../src/platform/ready-message.ts';

const facts = {
  base: 'http://127.0.0.1:3000',
  services: new Set(['admin', 'timeclock'] as const),
  database: 'embedded PostgreSQL (PGlite) in /srv/data',
  seconds: 2.345,
};

test('a first start names every address and each generated account once, with the command that replaces its password', () => {
  const lines = readyLines({
    ...facts,
    credentials: [
      { account: 'administrator', username: 'admin', password: 'pw-admin-123456', reset: 'npm run reset-password -- admin admin' },
      { account: 'time-clock manager', username: 'manager', password: 'pw-manager-1234', reset: 'npm run reset-password -- timeclock manager' },
    ],
  });
  const text = lines.join('\n');
  assert.match(lines[0]!, /^Ready in 2\.3 s \(embedded PostgreSQL \(PGlite\) in \/srv\/data\)$/);
  for (const url of ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000/api/admin/docs', 'http://127.0.0.1:3000/clock/', 'http://127.0.0.1:3000/api/docs']) assert.ok(text.includes(url), url);
  assert.match(text, /administrator {7}admin {4}pw-admin-123456/);
  assert.match(text, /shown this once/);
  assert.match(text, /npm run reset-password -- timeclock manager/);

  const box = framed(lines).trimEnd().split('\n');
  assert.equal(box.length, lines.length + 2);
  assert.equal(new Set(box.map((l) => l.length)).size, 1, 'every line of the frame has the same width');
});

test('a restart shows no accounts; one service shows only its own addresses', () => {
  const text = readyLines({ ...facts, services: new Set(['timeclock'] as const), credentials: [] }).join('\n');
  assert.doesNotMatch(text, /First start|password/);
  assert.doesNotMatch(text, /api\/admin/);
  assert.match(text, /Time-clock app +http:\/\/127\.0\.0\.1:3000\/clock\//);
});
