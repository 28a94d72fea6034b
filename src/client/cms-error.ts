/**
 * A refused request: the server's one error shape `{ name, message, data }` with the HTTP status.
 * `name` is the server's (`invalid`, `forbidden`, `notfound`, `conflict`, …), so callers can
 * branch on it; validation errors list the failing fields in `data.errors`.
 */
export class CmsError extends Error {
  readonly status: number;
  readonly data: Readonly<Record<string, unknown>>;

  constructor(status: number, name: string, message: string, data: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.name = name;
    this.status = status;
    this.data = data;
  }

  /** The error a failed response stands for; an answer not in the error shape (a proxy's page) keeps its status. */
  static async fromResponse(response: Response): Promise<CmsError> {
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (isErrorShape(body)) return new CmsError(response.status, body.name, body.message ?? body.name, isRecord(body.data) ? body.data : {});
    return new CmsError(response.status, 'error', response.statusText || `HTTP ${response.status}`, { body: text.slice(0, 1000) });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isErrorShape(value: unknown): value is { name: string; message?: string; data?: unknown } {
  return isRecord(value) && typeof value.name === 'string' && (value.message === undefined || typeof value.message === 'string');
}
