/**
 * Which `id` (and link `name`) values rich text may carry. They are the page's anchors
 * (`/page#install`), kept verbatim as the original keeps them, so they are not prefixed; instead:
 *
 * - a slug shape (a letter, then letters, digits, `-`, `_`; at most 64): no characters a
 *   selector or a URL would read differently, nothing that looks like markup;
 * - not the original editor's own `cms-` prefix;
 * - not a name that DOM clobbering targets. The `name` of forms, images, embeds and objects
 *   becomes a property of `document` that hides its real one (`document.cookie`), and a form's
 *   named fields hide the form's own properties: rich text allows none of those tags, but the
 *   names are refused anyway, in case a later tag does. An element's id (and an `<a>`'s name)
 *   becomes a named property of `window` too, but only where `window` has no property of that
 *   name (`#top` stays a fine anchor): what it can stand in for is a global a script only
 *   expects, so the usual ones and the `Object.prototype` members are refused as well.
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
