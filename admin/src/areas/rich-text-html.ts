/**
 * Rich text as the browser reads it, to compare two spellings of the same content: the server
 * answers what its sanitizer writes (`<img … />`, `style="color:red"`), the editor writes what
 * the browser does (`<img …>`, `style="color: red;"`). Both are parsed by the same HTML parser
 * and written back with attributes in name order and styles as the browser spells them.
 */
export function normalisedRichText(html: string): string {
  const known = recent.get(html);
  if (known !== undefined) return known;
  if (recent.size >= recentLimit) recent.clear();
  const normalised = parsedAndWritten(html);
  recent.set(html, normalised);
  return normalised;
}

// The unsaved-changes check runs after every pause in typing over every rich text of the form,
// most of them unchanged since the last check: their normalised spelling is remembered.
const recent = new Map<string, string>();
const recentLimit = 64;

function parsedAndWritten(html: string): string {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const element of template.content.querySelectorAll('*')) normaliseAttributes(element);
  return template.innerHTML;
}

function normaliseAttributes(element: Element): void {
  const attributes = [...element.attributes].map(({ name, value }) => [name, value] as const);
  if (attributes.length === 0) return;
  for (const [name] of attributes) element.removeAttribute(name);
  for (const [name, value] of attributes.sort(([a], [b]) => (a < b ? -1 : 1))) {
    element.setAttribute(name, value);
    if (name === 'style' && element instanceof HTMLElement) element.setAttribute('style', element.style.cssText);
  }
}
