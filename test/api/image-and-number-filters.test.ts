import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, keys, type TestApp } from '../helpers/test-app.js';

/** `measure`: a float and an integer field, public, so anonymous lists filter them too. */
function numbersConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://cms.test',
    apiKeys: { [keys.admin]: { role: 'admin' } },
    modules: {
      measure: {
        extend: '@cms/piece-type',
        options: { label: 'Measure', publicApiProjection: { title: 1, amount: 1, quantity: 1 } },
        fields: { add: { amount: { type: 'float' }, quantity: { type: 'integer' } } },
      },
    },
  };
}

// Doubles whose shortest decimal spelling a parser that rounds badly would read as a neighbour.
const amounts: Record<string, number> = {
  a: 1.1,
  b: 0.1 + 0.2,
  c: 2.675,
  d: 1e-7,
  e: 123456.78901234567,
  f: 5e-324,
  g: 1.7976931348623157e308,
  h: -0.5,
  i: 9007199254740993.5,
  j: 3,
};

const titles = (body: { results: { title: string }[] }) => body.results.map((doc) => doc.title).sort();

describe('float and integer filters: exact values as the original reads them', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(numbersConfig());
    let count = 0;
    for (const [title, amount] of Object.entries(amounts)) {
      const res = await t.request('POST', '/api/v1/measure', { body: { title, amount, quantity: count++ } });
      assert.equal(res.status, 200, res.text);
    }
  });
  after(() => t.close());

  const list = (query: string) => t.request('GET', `/api/v1/measure?perPage=100&${query}`, { key: null });

  it('matches every stored double exactly, spelled as JSON spells it, on both stores', async () => {
    for (const [title, amount] of Object.entries(amounts)) {
      const res = await list(`amount=${encodeURIComponent(String(amount))}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(titles(res.body), [title], `amount=${amount}`);
    }
  });

  it('reads a one-element array (amount[0]=1.1) as the exact value, as the original does', async () => {
    const res = await list('amount[0]=1.1');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(titles(res.body), ['a']);
    assert.deepEqual(titles((await list('amount[]=2.675')).body), ['c']);
    assert.deepEqual(titles((await list('quantity[0]=3')).body), ['d']);
    // Other spellings of the same double match too.
    assert.deepEqual(titles((await list('amount[0]=1.10')).body), ['a']);
    assert.deepEqual(titles((await list('amount=11e-1')).body), ['a']);
    assert.deepEqual(titles((await list('amount=3.0')).body), ['j']);
    assert.deepEqual(titles((await list('amount=0.3')).body), [], '0.1 + 0.2 is not 0.3');
  });

  it('keeps [min, max] a range, and compares bounds alike on both stores', async () => {
    assert.deepEqual(titles((await list('amount[]=1.1&amount[]=3')).body), ['a', 'c', 'j']);
    assert.deepEqual(titles((await list('amount[]=0.30000000000000004&amount[]=0.30000000000000004')).body), ['b']);
    assert.deepEqual(titles((await list('amount[]=&amount[]=0')).body), ['h']);
    assert.deepEqual(titles((await list('quantity[]=8&quantity[]=')).body), ['i', 'j']);
  });

  it('refuses what is no number, and arrays of another length, with a 400 naming the parameter', async () => {
    for (const query of ['amount[0]=abc', 'amount=1.1x', 'quantity[0]=1.5', 'amount[]=1&amount[]=2&amount[]=3', 'amount[0][x]=1', 'amount=1e400']) {
      const res = await list(query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.equal(res.body.data.errors[0].path, query.slice(0, query.search(/[[=]/)));
    }
  });
});
