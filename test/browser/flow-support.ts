import assert from 'node:assert/strict';

/**
 * What the media and users flows share: the server's state over the API, and waiting for the UI.
 * Kept outside flows/ so that every export of a file there is a flow.
 */
export interface FlowContext {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** Calls `/api/v1<path>` with the admin API key; fails the flow on any refusal. */
export async function api<T>(ctx: FlowContext, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${ctx.baseUrl}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `ApiKey ${ctx.apiKey}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A word no other document holds, so the flow finds only what it made. */
export function uniqueWord(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** Retries an assertion until it holds (the UI and the server answer asynchronously). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

// A 1×1 PNG: enough for an image piece.
const onePixelPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Uploads a 1×1 PNG and makes an `@cms/image` piece of it (published: images autopublish). */
export async function seedImage<T = { _id: string; cmsDocId: string; title: string }>(ctx: FlowContext, title: string): Promise<T> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(onePixelPng, 'base64')], { type: 'image/png' }), 'dot.png');
  const upload = await fetch(`${ctx.baseUrl}/api/v1/@cms/attachment/upload`, { method: 'POST', headers: { Authorization: `ApiKey ${ctx.apiKey}` }, body: form });
  assert.ok(upload.ok, `upload: ${upload.status} ${await upload.clone().text()}`);
  const attachment = (await upload.json()) as { _id: string };
  return api<T>(ctx, '/@cms/image?cmsLocale=en', { method: 'POST', body: { title, alt: `${title} alt`, attachment: { _id: attachment._id } } });
}
