import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribeToLivePreview } from '../../src/client/live-preview.js';

/** A framed window: its listeners, and what it posted to its parent. */
function framedWindow() {
  const listeners = new Set<(event: MessageEvent) => void>();
  const posted: { message: unknown; targetOrigin: string }[] = [];
  const parent = { postMessage: (message: unknown, targetOrigin: string) => void posted.push({ message, targetOrigin }) };
  const window = {
    parent,
    addEventListener: (_type: string, listener: (event: MessageEvent) => void) => void listeners.add(listener),
    removeEventListener: (_type: string, listener: (event: MessageEvent) => void) => void listeners.delete(listener),
  };
  const deliver = (event: Partial<MessageEvent>) => listeners.forEach((listener) => listener(event as MessageEvent));
  return { window: window as unknown as Window, parent, posted, listeners, deliver };
}

test('subscribeToLivePreview tells the parent it is ready, on the admin origin alone, and hears only that origin from the parent', () => {
  const framed = framedWindow();
  const seen: unknown[] = [];
  const stop = subscribeToLivePreview({ origin: 'https://cms.example/admin', onChange: (doc) => seen.push(doc), window: framed.window });
  assert.deepEqual(framed.posted, [{ message: { type: 'cms:live-preview-ready' }, targetOrigin: 'https://cms.example' }]);
  const document = { title: 'Typed' };
  framed.deliver({ origin: 'https://cms.example', source: framed.parent as never, data: { type: 'cms:live-preview', document } });
  framed.deliver({ origin: 'https://evil.example', source: framed.parent as never, data: { type: 'cms:live-preview', document: { title: 'x' } } });
  framed.deliver({ origin: 'https://cms.example', source: {} as never, data: { type: 'cms:live-preview', document: { title: 'y' } } });
  framed.deliver({ origin: 'https://cms.example', source: framed.parent as never, data: { type: 'other', document: { title: 'z' } } });
  framed.deliver({ origin: 'https://cms.example', source: framed.parent as never, data: null });
  assert.deepEqual(seen, [document]);
  stop();
  assert.equal(framed.listeners.size, 0);
});
