// Response serializers are Fastify's own (fast-json-stringify), compiled on a route's first
// answer with a status rather than at start: a server with a response schema that cannot compile
// starts, and only that route fails; the others serialize by their schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { buildSerializer } from '../../src/platform/http/serializers.ts';

test('a response serializer is compiled on the first answer, not when the server starts', async () => {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer } } });
  const reply = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } };
  app.get('/fine', { schema: { response: { 200: reply } } }, async () => ({ id: '7', name: 'seven', secret: 'not in the schema' }));
  app.get('/broken', { schema: { response: { 200: { $ref: 'nowhere#/definitions/missing' } } } }, async () => ({}));
  await app.ready();
  try {
    const fine = await app.inject({ method: 'GET', url: '/fine' });
    assert.equal(fine.statusCode, 200);
    assert.deepEqual(fine.json(), { id: 7, name: 'seven' });
    const broken = await app.inject({ method: 'GET', url: '/broken' });
    assert.equal(broken.statusCode, 500);
    assert.match(broken.json().message, /nowhere/);
  } finally {
    await app.close();
  }
});
