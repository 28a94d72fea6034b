/**
 * Which `id` (and link `name`) values rich text may carry. They are the page's anchors
 * (`/page#install`), kept verbatim as the original keeps them, so they are not prefixed; instead:
 *
 * - a slug shape (a letter, then letters, digits, `-`, `_`; at most 64): no characters a
 *   selector or a URL would read differently, nothing that looks like markup;
 * - not the original editor's own `cms-` prefix;
 * - not a name that DOM clobbering targets. An element's id (and an `<a>`'s name) becomes a
 *   named property of `window`, and the `name` of forms, images, embeds and objects one of
 *   `document` that hides its real property (`document.cookie`). Rich text allows none of the
 *   latter tags, but the list below refuses those names anyway, with the globals and
 *   `Object.prototype` members scripts most often look up on `window`, so an anchor never
 *   stands in for a property a script reads.
 */

const anchorShape = /^[a-z][a-z0-9_-]{0,63}$/i;

const clobberedNames: ReadonlySet<string> = new Set(
  [
    // document
    ...['cookie', 'domain', 'body', 'head', 'forms', 'images', 'links', 'anchors', 'scripts', 'embeds', 'plugins'],
    ...['all', 'documentElement', 'defaultView', 'referrer', 'URL', 'documentURI', 'baseURI', 'location', 'title'],
    ...['currentScript', 'activeElement', 'implementation', 'readyState', 'characterSet', 'contentType', 'doctype'],
    ...['createElement', 'getElementById', 'getElementsByName', 'getElementsByTagName', 'querySelector'],
    ...['querySelectorAll', 'write', 'writeln', 'open', 'close', 'cookieStore', 'lastModified', 'designMode'],
    // window
    ...['window', 'self', 'top', 'parent', 'frames', 'opener', 'name', 'length', 'closed', 'origin', 'history'],
    ...['navigator', 'localStorage', 'sessionStorage', 'indexedDB', 'crypto', 'fetch', 'alert', 'confirm', 'prompt'],
    ...['eval', 'setTimeout', 'setInterval', 'postMessage', 'frameElement', 'external', 'trustedTypes'],
    ...['customElements', 'isSecureContext', 'performance', 'screen', 'console', 'globalThis', 'document'],
    // forms and nodes, for names looked up through them
    ...['action', 'method', 'target', 'submit', 'reset', 'elements', 'attributes', 'children', 'childNodes'],
    ...['firstChild', 'lastChild', 'parentNode', 'parentElement', 'ownerDocument', 'nodeName', 'nodeType'],
    ...['innerHTML', 'outerHTML', 'textContent', 'innerText', 'style', 'className', 'classList', 'id', 'value'],
    ...['src', 'href', 'namespaceURI', 'tagName', 'getAttribute', 'setAttribute', 'appendChild', 'insertBefore'],
    // Object.prototype and common script globals
    ...['constructor', 'prototype', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'],
    ...['config', 'settings', 'app', 'module', 'exports', 'require', 'define', 'process', 'global', 'jQuery'],
    ...['dataLayer', 'ga', 'gtag'],
  ].map((name) => name.toLowerCase()),
);

export function isSafeAnchor(value: string): boolean {
  return anchorShape.test(value) && !value.toLowerCase().startsWith('cms-') && !clobberedNames.has(value.toLowerCase());
}
