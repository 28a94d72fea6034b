/**
 * Query parameters whose decoded name mentions a credential: `apikey`/`apiKey` (what the auth
 * hook reads) and every other spelling (`api_key`, `API-KEY`, `api%6Bey`, `apikey[]`), bearer
 * style `access_token`, a shared read's `cmsShareKey` (it opens a draft to whoever holds it),
 * anything named like a token, secret or password.
 */
const credentialName = /apikey|sharekey|token|secret|passw/;

/**
 * The URL as it may be logged: the value of every credential parameter replaced. Names are
 * compared after percent-decoding (repeatedly, so double encoding hides nothing), lower-cased,
 * with everything but letters removed; the auth hook decodes them too, so a key sent as
 * `api%6Bey=...` works and must not reach the log in clear.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    if (equals < 0 || !isCredentialName(pair.slice(0, equals))) return pair;
    return `${pair.slice(0, equals)}=[redacted]`;
  });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}

function isCredentialName(name: string): boolean {
  return credentialName.test(percentDecoded(name).toLowerCase().replace(/[^a-z]/g, ''));
}

/** Byte by byte, so a malformed sequence elsewhere in the name cannot stop the decoding. */
function percentDecoded(text: string): string {
  let current = text;
  for (let round = 0; round < 5; round++) {
    const next = current.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) return current;
    current = next;
  }
  return current;
}
