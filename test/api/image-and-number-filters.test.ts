import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, keys, type TestApp } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';

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

describe('image lists: minSize and aspectRatio, as the original\'s image query builders', () => {
  let t: TestApp;
  const logo = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
  before(async () => {
    t = await startTestApp();
    const images: [string, string, Buffer | string][] = [
      ['wide', 'wide.png', await makeImage('png', 400, 300)],
      ['tall', 'tall.jpg', await makeImage('jpeg', 300, 400)],
      ['small', 'small.gif', await makeImage('gif', 100, 100)],
      ['video', 'video.webp', await makeImage('webp', 1600, 900)],
      ['almost', 'almost.png', await makeImage('png', 199, 200)],
      ['edge', 'edge.png', await makeImage('png', 99, 100)],
      ['logo', 'logo.svg', logo],
    ];
    for (const [title, filename, content] of images) {
      const attachment = await uploaded(t, filename, content);
      const res = await t.request('POST', '/api/v1/@cms/image', { body: { title, attachment: { _id: attachment._id } } });
      assert.equal(res.status, 200, res.text);
    }
    const file = await uploaded(t, 'wide.png', await makeImage('png', 400, 300));
    assert.equal((await t.request('POST', '/api/v1/@cms/file', { body: { title: 'a file', attachment: { _id: file._id } } })).status, 200);
  });
  after(() => t.close());

  const list = (query: string, type = '@cms/image') => t.request('GET', `/api/v1/${type}?perPage=100&${query}`, { key: null });
  const found = async (query: string) => {
    const res = await list(query);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return titles(res.body);
  };

  it('minSize=[w,h] lists images at least that wide and high, and SVGs (any size), to anonymous callers too', async () => {
    assert.deepEqual(await found('minSize[]=300&minSize[]=200'), ['logo', 'tall', 'video', 'wide']);
    assert.deepEqual(await found('minSize[0]=301&minSize[1]=0'), ['logo', 'video', 'wide']);
    assert.deepEqual(await found('minSize[]=1600&minSize[]=900'), ['logo', 'video']);
    assert.deepEqual(await found('minSize[]=2000000&minSize[]=1'), ['logo']);
    assert.deepEqual(await found(`minSize[]=${'9'.repeat(400)}&minSize[]=1`), ['logo']);
  });

  it('reads negative and empty sides as no limit, as the original launders them', async () => {
    const all = ['almost', 'edge', 'logo', 'small', 'tall', 'video', 'wide'];
    assert.deepEqual(await found('minSize[]=-5&minSize[]=-5'), all);
    assert.deepEqual(await found('minSize[]=&minSize[]='), all);
  });

  it('aspectRatio=[w,h] lists images within 1% of the ratio (autocrop\'s tolerance), and SVGs', async () => {
    assert.deepEqual(await found('aspectRatio[]=4&aspectRatio[]=3'), ['logo', 'wide']);
    assert.deepEqual(await found('aspectRatio[]=16&aspectRatio[]=9'), ['logo', 'video']);
    assert.deepEqual(await found('aspectRatio[]=3&aspectRatio[]=4'), ['logo', 'tall']);
    // 199×200 is within 1% of square; 99×100 is exactly 1% off, which is not within.
    assert.deepEqual(await found('aspectRatio[]=1&aspectRatio[]=1'), ['almost', 'logo', 'small']);
    assert.deepEqual(await found('aspectRatio[]=1.5&aspectRatio[]=1.5'), ['almost', 'logo', 'small']);
    assert.deepEqual(await found('aspectRatio[]=0.99&aspectRatio[]=1'), ['almost', 'edge', 'logo']);
  });

  it('combines with each other and with the other filters and counts', async () => {
    assert.deepEqual(await found('aspectRatio[]=1&aspectRatio[]=1&minSize[]=150&minSize[]=150'), ['almost', 'logo']);
    const count = await list('minSize[]=300&minSize[]=300&count=1');
    assert.deepEqual(count.body, { count: 4 });
    assert.deepEqual(await found('minSize[]=300&minSize[]=200&title=i'), ['video', 'wide']);
  });

  it('refuses values of the wrong shape with a 400 naming the parameter', async () => {
    const bad = [
      'minSize=300',
      'minSize[]=300',
      'minSize[]=1&minSize[]=2&minSize[]=3',
      'minSize[]=a&minSize[]=1',
      'minSize[]=1.5&minSize[]=1',
      'minSize[w]=1&minSize[h]=1',
      'aspectRatio=1.5',
      'aspectRatio[]=0&aspectRatio[]=1',
      'aspectRatio[]=-1&aspectRatio[]=1',
      'aspectRatio[]=abc&aspectRatio[]=1',
      'aspectRatio[]=1e-320&aspectRatio[]=1e300',
      'aspectRatio[]=1e400&aspectRatio[]=1',
    ];
    for (const query of bad) {
      const res = await list(query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.data.errors[0].path, query.slice(0, query.search(/[[=]/)));
    }
  });

  it('is offered on image lists only: a file list ignores the parameter', async () => {
    const res = await list('minSize[]=5000&minSize[]=5000', '@cms/file');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(titles(res.body), ['a file']);
  });
});
