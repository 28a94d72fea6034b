import { onBeforeUnmount, onMounted, type Ref } from 'vue';
import { t } from '../i18n';

/**
 * The admin's keyboard shortcuts, all in one list: the `?` dialog shows this list, the buttons
 * name their keys (`aria-keyshortcuts`) from it, and one window listener fires them. A screen
 * binds what a shortcut does while it is shown (`useShortcut`); a shortcut nothing binds does
 * nothing, and the browser keeps the key.
 */
export type ShortcutName = 'save' | 'publish' | 'search' | 'palette' | 'help';

export interface Shortcut {
  readonly name: ShortcutName;
  /** `KeyboardEvent.key`, lower case for a letter. */
  readonly key: string;
  /** Mod: Ctrl on Linux and Windows, Cmd on macOS. */
  readonly mod: boolean;
  readonly shift: boolean;
  /** Fires while focus is in a text field or rich text: the Mod chords, which type nothing. */
  readonly whileTyping: boolean;
  /** Where it works, a key under `shortcuts.where`. */
  readonly where: 'editor' | 'lists' | 'anywhere';
}

// Publish is Mod+Shift+Enter: Mod+Shift+P opens a private window in Firefox and cannot be taken
// from it; Enter chords are no browser's, and the rich text binds none with Shift and Mod.
export const shortcuts: readonly Shortcut[] = [
  { name: 'save', key: 's', mod: true, shift: false, whileTyping: true, where: 'editor' },
  { name: 'publish', key: 'enter', mod: true, shift: true, whileTyping: true, where: 'editor' },
  { name: 'palette', key: 'k', mod: true, shift: false, whileTyping: true, where: 'anywhere' },
  { name: 'search', key: '/', mod: false, shift: false, whileTyping: false, where: 'lists' },
  { name: 'help', key: '?', mod: false, shift: false, whileTyping: false, where: 'anywhere' },
];

const onMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

function shortcutNamed(name: ShortcutName): Shortcut {
  return shortcuts.find((shortcut) => shortcut.name === name)!;
}

/**
 * Whether the event is the shortcut's chord. A key without Mod ignores Shift, which some layouts
 * need to type `/` or `?` (German: Shift+7); with Mod, Shift must be as given.
 */
function matches(shortcut: Shortcut, event: KeyboardEvent): boolean {
  const mod = onMac ? event.metaKey : event.ctrlKey;
  const otherMod = onMac ? event.ctrlKey : event.metaKey;
  if (event.altKey || otherMod || mod !== shortcut.mod) return false;
  if (shortcut.mod && event.shiftKey !== shortcut.shift) return false;
  return event.key.toLowerCase() === shortcut.key;
}

const nonTextInputs = new Set(['button', 'checkbox', 'color', 'file', 'image', 'radio', 'range', 'reset', 'submit']);

/** Focus in a field that takes typed characters: there `/` and `?` are text. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !nonTextInputs.has(target.type);
}

export interface ShortcutBinding {
  readonly run: () => void;
  /** As the matching button's disabled state: false keeps the key from the browser and does nothing. */
  readonly enabled?: () => boolean;
}

/** The bindings of each shortcut, the latest mounted last: it is the one that fires. */
const bindings = new Map<ShortcutName, ShortcutBinding[]>();

/** Binds the shortcut while the calling component is mounted. */
export function useShortcut(name: ShortcutName, binding: ShortcutBinding): void {
  onMounted(() => bindings.set(name, [...(bindings.get(name) ?? []), binding]));
  onBeforeUnmount(() => bindings.set(name, (bindings.get(name) ?? []).filter((bound) => bound !== binding)));
}

/** `/` puts the caret in this search box, its text selected so that typing replaces it. */
export function useSearchShortcut(input: Ref<HTMLInputElement | undefined>): void {
  useShortcut('search', {
    run: () => {
      input.value?.focus();
      input.value?.select();
    },
  });
}

function onKeydown(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.isComposing) return;
  const shortcut = shortcuts.find((candidate) => matches(candidate, event));
  const binding = shortcut && bindings.get(shortcut.name)?.at(-1);
  if (!shortcut || !binding || (!shortcut.whileTyping && isTyping(event.target))) return;
  event.preventDefault();
  // An open modal (a question, the palette itself) has the keyboard until it closes; a held key
  // repeats, which must not save or publish again.
  if (event.repeat || document.querySelector('dialog:modal')) return;
  if (binding.enabled?.() ?? true) binding.run();
}

/** Listens for every shortcut; returns what stops listening. */
export function listenForShortcuts(): () => void {
  window.addEventListener('keydown', onKeydown);
  return () => window.removeEventListener('keydown', onKeydown);
}

function keyName(key: string): string {
  if (key === 'enter') return t('shortcuts.keys.enter');
  return key.toUpperCase();
}

/** The keys to press, as the `?` dialog shows them ("Ctrl", "Shift", "Enter"). */
export function keysOf(shortcut: Shortcut): string[] {
  return [
    ...(shortcut.mod ? [onMac ? t('shortcuts.keys.cmd') : t('shortcuts.keys.ctrl')] : []),
    ...(shortcut.shift ? [t('shortcuts.keys.shift')] : []),
    keyName(shortcut.key),
  ];
}

/** The shortcut as `aria-keyshortcuts` spells it ("Control+Shift+Enter", "Meta+S"). */
export function ariaKeyshortcuts(name: ShortcutName): string {
  const shortcut = shortcutNamed(name);
  const key = shortcut.key === 'enter' ? 'Enter' : shortcut.key.toUpperCase();
  return [...(shortcut.mod ? [onMac ? 'Meta' : 'Control'] : []), ...(shortcut.shift ? ['Shift'] : []), key].join('+');
}
