import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LinkBase, listenOrigin } from '../../src/config/link-base.js';
import { loadConfig } from '../../src/config/load.js';

test('the listening origin names a wildcard or loopback host localhost, brackets IPv6', () => {
  for (const host of ['0.0.0.0', '::', '127.0.0.1', '::1']) assert.equal(listenOrigin(host, 8080), 'http://localhost:8080', host);
  assert.equal(listenOrigin('192.168.1.20', 3001), 'http://192.168.1.20:3001');
  assert.equal(listenOrigin('fe80::1', 3001), 'http://[fe80::1]:3001');
});

test('links follow the listening address only when no baseUrl is configured', () => {
  const derived = new LinkBase(null);
  assert.equal(derived.url, '', 'relative until the server listens');
  derived.listeningAt('0.0.0.0', 4321);
  assert.equal(derived.url, 'http://localhost:4321');
  const configured = new LinkBase('https://cms.example.com');
  configured.listeningAt('0.0.0.0', 4321);
  assert.equal(configured.url, 'https://cms.example.com');
  const relative = new LinkBase('');
  relative.listeningAt('0.0.0.0', 4321);
  assert.equal(relative.url, '', 'baseUrl "" keeps links relative');
});

test('baseUrl is null when neither the file nor CMS_BASE_URL gives one; "" stays relative', async () => {
  assert.equal((await loadConfig({ config: {}, env: {} })).baseUrl, null);
  assert.equal((await loadConfig({ config: { baseUrl: '' }, env: {} })).baseUrl, '');
  assert.equal((await loadConfig({ config: {}, env: { CMS_BASE_URL: '' } })).baseUrl, '');
  assert.equal((await loadConfig({ config: {}, env: { CMS_BASE_URL: 'http://a.test/' } })).baseUrl, 'http://a.test');
});
