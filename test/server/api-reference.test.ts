// The API reference of both services: documents that validate as OpenAPI 3.1 with a standard
// validator, name the server they were fetched from (or PUBLIC_URL), and a page titled per
// service without the controls that do nothing for our users. The page's plugin (whose module
// holds its 4 MB script) is loaded on the first request for the page, not at start.
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { validate } from '@scalar/openapi-parser';
import { closeAll, startApps, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const SERVICES = [
  { docs: '/api/admin/docs', title: 'Back-office administration API' },
  { docs: '/api/docs', title: 'Worker time-clock API' },
];

/** Whether a module of Scalar's Fastify plugin has been loaded since the hook below was registered. */
let referencePluginLoaded = false;
const loads = registerHooks({
  load(url, context, nextLoad) {
    if (url.includes('/@scalar/fastify-api-reference/')) referencePluginLoaded = true;
    return nextLoad(url, context);
  },
});

describe('API reference', () => {
  let app: TestApp;
  let published: TestApp;
  before(async () => {
    [app, published] = await startApps([{}, { PUBLIC_URL: 'https://ops.example.com' }]);
  });
  after(() => {
    loads.deregister();
    return closeAll(app, published);
  });

  test('the page\'s plugin is loaded by the first request for a page, not at start', async () => {
    assert.equal(referencePluginLoaded, false);
    const script = await call(app, 'GET', `${SERVICES[0]!.docs}/js/scalar.js`);
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /^application\/javascript/);
    assert.ok(String(script.body).includes('createApiReference'));
    assert.equal(referencePluginLoaded, true);
  });

  for (const { docs, title } of SERVICES) {
    test(`${docs}: the document is valid OpenAPI 3.1 and names the server it came from`, async () => {
      const res = await call(app, 'GET', `${docs}/openapi.json`, { headers: { host: 'api.internal:8443' } });
      assert.equal(res.status, 200);
      const { valid, errors } = await validate(res.body);
      assert.deepEqual(errors, []);
      assert.equal(valid, true);
      assert.equal(res.body.openapi, '3.1.0');
      assert.equal(res.body.info.title, title);
      assert.deepEqual(res.body.servers, [{ url: 'http://api.internal:8443', description: 'this server' }]);
      const fixed = await call(published, 'GET', `${docs}/openapi.json`);
      assert.deepEqual(fixed.body.servers, [{ url: 'https://ops.example.com', description: 'PUBLIC_URL' }]);
      const yaml = await call(app, 'GET', `${docs}/openapi.yaml`);
      assert.equal(yaml.status, 200);
      assert.match(String(yaml.body), new RegExp(`^openapi: 3\\.1\\.0$[\\s\\S]*^  title: ${title}$`, 'm'));
    });

    test(`${docs}: the page is titled for its service and leaves out the agent, MCP and client controls`, async () => {
      const page = await call(app, 'GET', `${docs}/`);
      assert.equal(page.status, 200);
      const html = String(page.body);
      assert.match(html, new RegExp(`<title>${title} — reference</title>`));
      const config = JSON.parse(/createApiReference\('#app', (\{[\s\S]*?\})\)/.exec(html)![1]!) as Record<string, unknown>;
      assert.deepEqual(config.agent, { disabled: true });
      assert.deepEqual(config.mcp, { disabled: true });
      assert.equal(config.hideClientButton, true);
      assert.equal(config.showDeveloperTools, 'never');
    });
  }
});
