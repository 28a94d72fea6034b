import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';

/**
 * SVG uploads are served to browsers as documents that can run script, so anything that could
 * act is refused rather than cleaned: a clean SVG from an editor passes, a crafted one gets a
 * 400. The file is parsed as XML with namespaces (saxes: streaming, and it neither reads a
 * DTD nor expands entities a document declares), so a prefix cannot disguise an element and a
 * character reference cannot disguise a value: elements and attributes are allowed by their
 * namespace URI and local name, and values are checked as the browser will read them.
 */

const svgNs = 'http://www.w3.org/2000/svg';
const xlinkNs = 'http://www.w3.org/1999/xlink';
const xmlNs = 'http://www.w3.org/XML/1998/namespace';
const xmlnsNs = 'http://www.w3.org/2000/xmlns/';

// Drawing, text, paint servers, filters and declarative animation; no script, foreignObject,
// fonts (their `font-face-uri` loads files) or anything that embeds another document.
const svgElements: ReadonlySet<string> = new Set([
  ...['svg', 'g', 'defs', 'desc', 'title', 'metadata', 'symbol', 'use', 'switch', 'view', 'a', 'style'],
  ...['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'textPath', 'image'],
  ...['linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker', 'filter'],
  ...['animate', 'animateMotion', 'animateTransform', 'mpath', 'set'],
  ...['feBlend', 'feColorMatrix', 'feComponentTransfer', 'feComposite', 'feConvolveMatrix', 'feDiffuseLighting'],
  ...['feDisplacementMap', 'feDistantLight', 'feDropShadow', 'feFlood', 'feFuncA', 'feFuncB', 'feFuncG', 'feFuncR'],
  ...['feGaussianBlur', 'feImage', 'feMerge', 'feMergeNode', 'feMorphology', 'feOffset', 'fePointLight'],
  ...['feSpecularLighting', 'feSpotLight', 'feTile', 'feTurbulence'],
]);

// Geometry, presentation and animation attributes (DOMPurify's SVG list), compared in lower
// case. Event handlers (`on*`) are in no list.
const svgAttributes: ReadonlySet<string> = new Set(
  [
    ...['accent-height', 'accumulate', 'additive', 'alignment-baseline', 'amplitude', 'ascent', 'attributename'],
    ...['attributetype', 'azimuth', 'basefrequency', 'baseline-shift', 'begin', 'bias', 'by', 'class', 'clip'],
    ...['clippathunits', 'clip-path', 'clip-rule', 'color', 'color-interpolation', 'color-interpolation-filters'],
    ...['color-rendering', 'cx', 'cy', 'd', 'dx', 'dy', 'diffuseconstant', 'direction', 'display', 'divisor'],
    ...['dominant-baseline', 'dur', 'edgemode', 'elevation', 'enable-background', 'end', 'exponent', 'fill'],
    ...['fill-opacity', 'fill-rule', 'filter', 'filterunits', 'flood-color', 'flood-opacity', 'font-family'],
    ...['font-size', 'font-size-adjust', 'font-stretch', 'font-style', 'font-variant', 'font-weight', 'fr', 'from'],
    ...['fx', 'fy', 'gradientunits', 'gradienttransform', 'height', 'href', 'id', 'image-rendering', 'in', 'in2'],
    ...['intercept', 'isolation', 'k', 'k1', 'k2', 'k3', 'k4', 'kerning', 'keypoints', 'keysplines', 'keytimes'],
    ...['lang', 'lengthadjust', 'letter-spacing', 'kernelmatrix', 'kernelunitlength', 'lighting-color', 'local'],
    ...['marker-end', 'marker-mid', 'marker-start', 'markerheight', 'markerunits', 'markerwidth'],
    ...['maskcontentunits', 'maskunits', 'max', 'mask', 'mask-type', 'media', 'method', 'mix-blend-mode', 'mode'],
    ...['min', 'name', 'numoctaves', 'offset', 'operator', 'opacity', 'order', 'orient', 'orientation', 'origin'],
    ...['overflow', 'paint-order', 'path', 'pathlength', 'patterncontentunits', 'patterntransform'],
    ...['patternunits', 'points', 'pointer-events', 'preservealpha', 'preserveaspectratio', 'primitiveunits', 'r'],
    ...['rx', 'ry', 'radius', 'refx', 'refy', 'repeatcount', 'repeatdur', 'restart', 'result', 'role', 'rotate'],
    ...['scale', 'seed', 'shape-rendering', 'slope', 'specularconstant', 'specularexponent', 'spreadmethod'],
    ...['startoffset', 'stddeviation', 'stitchtiles', 'stop-color', 'stop-opacity', 'stroke-dasharray'],
    ...['stroke-dashoffset', 'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit', 'stroke-opacity', 'stroke'],
    ...['stroke-width', 'style', 'surfacescale', 'systemlanguage', 'tabindex', 'tablevalues', 'targetx', 'targety'],
    ...['to', 'transform', 'transform-origin', 'text-anchor', 'text-decoration', 'text-rendering', 'textlength'],
    ...['type', 'u1', 'u2', 'unicode', 'unicode-bidi', 'values', 'vector-effect', 'viewbox', 'visibility'],
    ...['version', 'vert-adv-y', 'vert-origin-x', 'vert-origin-y', 'width', 'word-spacing', 'wrap', 'writing-mode'],
    ...['x', 'x1', 'x2', 'xchannelselector', 'y', 'y1', 'y2', 'ychannelselector', 'z', 'zoomandpan'],
    ...['baseprofile', 'contentscripttype', 'contentstyletype', 'data-name'],
  ].map((name) => name.toLowerCase()),
);

const xlinkAttributes: ReadonlySet<string> = new Set(['href', 'title', 'type', 'show', 'actuate', 'role', 'arcrole']);
// `xml:base` would change what a link resolves against.
const xmlAttributes: ReadonlySet<string> = new Set(['space', 'lang']);

// Editors keep their own data in these namespaces (Inkscape's named view, RDF licence
// metadata, Illustrator's private data). Browsers give such elements no behaviour at all.
const editorNamespaces: ReadonlySet<string> = new Set([
  'http://www.inkscape.org/namespaces/inkscape',
  'http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd',
  'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  'http://creativecommons.org/ns#',
  'http://web.resource.org/cc/',
  'http://purl.org/dc/elements/1.1/',
  'http://purl.org/dc/terms/',
  'http://ns.adobe.com/AdobeIllustrator/10.0/',
  'http://ns.adobe.com/AdobeSVGViewerExtensions/3.0/',
  'http://ns.adobe.com/Extensibility/1.0/',
  'http://ns.adobe.com/Graphs/1.0/',
  'http://ns.adobe.com/SaveForWeb/1.0/',
  'http://ns.adobe.com/Variables/1.0/',
  'http://ns.adobe.com/ImageReplacement/1.0/',
  'http://www.bohemiancoding.com/sketch/ns',
  'http://www.serif.com/',
]);

// Editors embed bitmaps this way; a raster image cannot run script.
const embeddedBitmap = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;

/**
 * CSS (a `style` attribute or element, or any presentation attribute) may refer only to
 * fragments of this document. Backslashes are refused because CSS escapes could spell any
 * of the words below.
 */
const cssProblems: readonly { pattern: RegExp; reason: string }[] = [
  { pattern: /@import/i, reason: 'style sheet imports' },
  { pattern: /url\s*\(\s*(?!['"]?\s*#)/i, reason: 'external references in styles' },
  { pattern: /image-set\s*\(|(^|[^a-z-])(image|src|element|cross-fade|expression)\s*\(/i, reason: 'external references in styles' },
  { pattern: /-moz-binding|behavior\s*:/i, reason: 'style bindings' },
  { pattern: /\\/, reason: 'escapes in styles' },
];

// No editor nests groups this deep or writes this many attributes on one element; the bounds
// keep the parser's own memory small (it gathers an element's attributes before reporting it).
const maxDepth = 256;
const maxAttributes = 1000;

/** Thrown inside the parser's handlers to stop at the first problem. */
class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** A name from the file as a refusal message quotes it: bounded, since the file may make it any length. */
function quoted(name: string, length = 40): string {
  return name.length > length ? `${name.slice(0, length)}…` : name;
}

function checkCss(value: string): void {
  for (const { pattern, reason } of cssProblems) if (pattern.test(value)) refuse(`SVG files with ${reason} are not accepted`);
}

/** Links may only point inside the document (`#id`) or hold an embedded bitmap. */
function checkHref(value: string): void {
  const link = value.trim();
  if (!link.startsWith('#') && !embeddedBitmap.test(link)) refuse('SVG files with links outside the image are not accepted');
}

/**
 * What an animation's `attributeName` names, read the widest way: without any whitespace or
 * control character, in lower case, and without a prefix (`xlink:href` names `href`).
 */
function animatedName(value: string): string {
  const name = value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
  return name.slice(name.lastIndexOf(':') + 1);
}

/**
 * `<animate>`, `<set>` and the other animations may change any attribute of their target: one
 * that sets an event handler (`on*`) would run its value as script, one that changes a link
 * could point it anywhere (`javascript:` included).
 */
function checkAnimatedName(value: string): void {
  const name = animatedName(value);
  if (name.startsWith('on')) refuse('SVG files that animate event handlers are not accepted');
  if (name.endsWith('href')) refuse('SVG files with animated links are not accepted');
}

function checkSvgAttribute(attribute: SaxesAttributeNS): void {
  const name = attribute.local.toLowerCase();
  if (!svgAttributes.has(name)) refuse(`SVG files with the attribute ${quoted(attribute.name)} are not accepted`);
  if (name === 'href') return checkHref(attribute.value);
  if (name === 'attributename') checkAnimatedName(attribute.value);
  checkCss(attribute.value);
}

function checkAttribute(attribute: SaxesAttributeNS, onSvgElement: boolean): void {
  const { uri, local } = attribute;
  if (uri === xmlnsNs || editorNamespaces.has(uri)) return;
  if (uri === xlinkNs && xlinkAttributes.has(local)) return local === 'href' ? checkHref(attribute.value) : undefined;
  if (uri === xmlNs && xmlAttributes.has(local)) return;
  if (uri === '' && onSvgElement) return checkSvgAttribute(attribute);
  // An editor's element: inert, but its plain attributes still may not look like handlers or links.
  if (uri === '' && !/^on/i.test(local) && local.toLowerCase() !== 'href') return checkCss(attribute.value);
  refuse(`SVG files with the attribute ${quoted(attribute.name)} are not accepted`);
}

function checkElement(tag: SaxesTagNS, depth: number): void {
  if (depth === 0 && (tag.uri !== svgNs || tag.local !== 'svg')) refuse('it is not an SVG image');
  if (depth > maxDepth) refuse(`SVG files nested deeper than ${maxDepth} elements are not accepted`);
  const isSvg = tag.uri === svgNs;
  if (isSvg ? !svgElements.has(tag.local) : !editorNamespaces.has(tag.uri)) {
    refuse(`SVG files with ${quoted(tag.name)} elements are not accepted`);
  }
  for (const attribute of Object.values(tag.attributes)) checkAttribute(attribute, isSvg);
}

/** Feeds an SVG in pieces; `finish` tells why it is refused, or null when it is clean. */
export class SvgCheck {
  readonly #parser = new SaxesParser({ xmlns: true, position: false });
  #depth = 0;
  #attributes = 0;
  #inStyle = false;
  #problem: string | null = null;
  #sawRoot = false;

  constructor() {
    const parser = this.#parser;
    parser.on('doctype', (doctype) => {
      // A public DTD identifier is harmless (nothing reads it); an internal subset declares entities.
      if (doctype.includes('[')) refuse('SVG files with document type declarations are not accepted');
    });
    parser.on('processinginstruction', () => refuse('SVG files with processing instructions are not accepted'));
    parser.on('opentagstart', () => {
      this.#attributes = 0;
    });
    parser.on('attribute', () => {
      this.#attributes += 1;
      if (this.#attributes > maxAttributes) refuse(`SVG files with more than ${maxAttributes} attributes on an element are not accepted`);
    });
    parser.on('opentag', (tag) => {
      checkElement(tag, this.#depth);
      this.#sawRoot = true;
      this.#depth += 1;
      this.#inStyle = tag.uri === svgNs && tag.local === 'style';
    });
    parser.on('closetag', () => {
      this.#depth -= 1;
      this.#inStyle = false;
    });
    parser.on('text', (text) => this.#inStyle && checkCss(text));
    parser.on('cdata', (text) => this.#inStyle && checkCss(text));
    parser.on('error', (error) => refuse(`it is not well-formed XML (${quoted(error.message.replace(/\.$/, ''), 120)})`));
  }

  /** Whether to go on feeding: false once a problem was found. */
  write(chunk: string): boolean {
    return this.#run(() => this.#parser.write(chunk));
  }

  finish(): string | null {
    this.#run(() => this.#parser.close());
    if (this.#problem === null && !this.#sawRoot) return 'it is not an SVG image';
    return this.#problem;
  }

  #run(step: () => unknown): boolean {
    if (this.#problem !== null) return false;
    try {
      step();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      this.#problem = error.message;
    }
    return this.#problem === null;
  }
}

/** Why the SVG text is refused, or null when it is an SVG with nothing active or external in it. */
export function svgProblem(text: string): string | null {
  const check = new SvgCheck();
  check.write(text);
  return check.finish();
}
