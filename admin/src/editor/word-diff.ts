/**
 * A word diff by longest common subsequence: what two texts share stays, the rest is marked
 * removed (in the older) or added (in the newer). Texts are split into words and the spaces
 * between them, so joining the parts gives each text back. Past `maxCells` cells of the LCS
 * table (two long texts) the texts are answered as one removal and one addition: a history
 * panel must never hold the page for seconds.
 */
export interface DiffPart {
  readonly kind: 'same' | 'removed' | 'added';
  readonly text: string;
}

const maxCells = 4_000_000;

export function tokens(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  if (a.length * b.length > maxCells) return merged([...a.map((text) => part('removed', text)), ...b.map((text) => part('added', text))]);
  // lengths[i][j]: the LCS of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      parts.push(part('same', a[i++]!));
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) parts.push(part('removed', a[i++]!));
    else parts.push(part('added', b[j++]!));
  }
  while (i < a.length) parts.push(part('removed', a[i++]!));
  while (j < b.length) parts.push(part('added', b[j++]!));
  return merged(parts);
}

function part(kind: DiffPart['kind'], text: string): DiffPart {
  return { kind, text };
}

/** Neighbouring parts of one kind as one, so a changed phrase reads as one mark. */
function merged(parts: readonly DiffPart[]): DiffPart[] {
  const result: DiffPart[] = [];
  for (const next of parts) {
    const last = result[result.length - 1];
    if (last && last.kind === next.kind) result[result.length - 1] = part(last.kind, last.text + next.text);
    else result.push(next);
  }
  return result;
}
