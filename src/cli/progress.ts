import type { CliIo } from './command.js';

/** One stage of long work (`documents`, `files`): counted up as it goes, then done. */
export interface ProgressStage {
  add(amount: number): void;
  done(): void;
}

export interface Progress {
  /** A stage of `total` items (or bytes, with `unit: 'bytes'`); an unknown total shows no bar nor ETA. */
  stage(label: string, options?: { total?: number; unit?: 'items' | 'bytes' }): ProgressStage;
}

// A terminal line is redrawn at most this often. A log gets a line this often, or at each tenth
// of the total but then at most once a second: short work logs only its final line.
const redrawMs = 100;
const logLineMs = 5000;
const logStepMs = 1000;
const barWidth = 24;

/**
 * Progress on `io.stderr`: on a terminal one line redrawn in place with a bar, count/total,
 * rate and ETA; otherwise (CI logs, files) a plain line every few seconds or every 10 %, so
 * logs stay readable; nothing at all when `quiet`. Hand-written: the packages that do this pull
 * in far more (colors, multi-bar layouts) than one line needs.
 */
export function createProgress(io: Pick<CliIo, 'stderr'>, options: { quiet: boolean; now?: () => number }): Progress {
  const now = options.now ?? (() => performance.now());
  const out = io.stderr;
  if (options.quiet) return { stage: () => ({ add: () => undefined, done: () => undefined }) };
  return {
    stage(label, { total, unit = 'items' } = {}) {
      const started = now();
      let count = 0;
      let shownAt = started;
      let shownTenth = 0;
      const line = (final: boolean) => {
        const seconds = Math.max((now() - started) / 1000, 1e-3);
        const rate = count / seconds;
        const amount = total === undefined ? format(count, unit) : `${format(count, unit)}/${format(total, unit)}`;
        if (final) return `${label}: ${amount} in ${seconds.toFixed(1)} s`;
        const speed = `${format(rate, unit)}/s`;
        if (total === undefined || total === 0) return `${label}: ${amount}  ${speed}`;
        const share = Math.min(count / total, 1);
        const eta = rate > 0 ? `  ETA ${Math.ceil((total - count) / rate)} s` : '';
        const filled = Math.round(share * barWidth);
        return `${label} [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${amount} ${Math.floor(share * 100)}%  ${speed}${eta}`;
      };
      const show = () => {
        const at = now();
        if (out.isTTY) {
          if (at - shownAt < redrawMs) return;
          out.write(`\r${line(false)}\x1b[K`);
        } else {
          const tenth = total ? Math.floor((count / total) * 10) : 0;
          const due = at - shownAt >= logLineMs || (tenth > shownTenth && at - shownAt >= logStepMs);
          if (!due) return;
          shownTenth = tenth;
          out.write(`${line(false)}\n`);
        }
        shownAt = at;
      };
      return {
        add(amount) {
          count += amount;
          show();
        },
        done() {
          out.write(out.isTTY ? `\r${line(true)}\x1b[K\n` : `${line(true)}\n`);
        },
      };
    },
  };
}

function format(value: number, unit: 'items' | 'bytes'): string {
  if (unit === 'items') return String(Math.round(value));
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let scaled = value;
  let index = 0;
  while (scaled >= 1000 && index < units.length - 1) {
    scaled /= 1000;
    index++;
  }
  return `${index === 0 ? Math.round(scaled) : scaled.toFixed(1)} ${units[index]}`;
}
