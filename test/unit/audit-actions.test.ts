import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { auditActions } from '../../src/core/audit.js';
import { packageRoot } from '../helpers/typecheck.js';

/*
 * Every action the audit trail writes is spelt once (`auditActions`, which types every writer):
 * the reference names each of them, and the admin's action filter offers exactly them.
 */

test('the REST reference names every audit action, and no other', async () => {
  const reference = await readFile(join(packageRoot, 'docs', 'reference', 'rest-api.md'), 'utf8');
  const paragraph = reference.slice(reference.indexOf('\nActions: '), reference.indexOf('\n\n', reference.indexOf('\nActions: ')));
  const named = new Set([...paragraph.matchAll(/`([a-z]+(?:\.[a-zA-Z]+)*)`/g)].map((match) => match[1]!).filter((name) => !/^(cms|detail)/.test(name)));
  assert.deepEqual([...named].sort(), [...auditActions].sort());
});

test("the admin's audit filter offers every audit action, spelt as the server writes it", async () => {
  const source = await readFile(join(packageRoot, 'admin', 'src', 'audit', 'audit-api.ts'), 'utf8');
  const list = source.slice(source.indexOf('export const auditActions'), source.indexOf('];', source.indexOf('export const auditActions')));
  const offered = [...list.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
  assert.deepEqual([...offered].sort(), [...auditActions].sort());
});
