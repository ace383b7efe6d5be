import type { JSX } from 'preact';

type Shape = 'up' | 'down' | 'oos' | 'offline' | 'unknown' | 'restricted' | 'other';

const SHAPES: Readonly<Record<string, Shape>> = {
  UP: 'up', DOWN: 'down', OUT_OF_SERVICE: 'oos', OFFLINE: 'offline', UNKNOWN: 'unknown', RESTRICTED: 'restricted',
};

/** The CSS class of a status: its colour. A status Vigil does not know gets a neutral one. */
export function statusClass(status: string): string {
  return `s-${SHAPES[status] ?? 'other'}`;
}

export function statusLabel(status: string): string {
  return status.replaceAll('_', ' ');
}

/**
 * Every status has its own shape as well as its colour (check, cross, slashed ring, dashed ring,
 * question mark, exclamation), so it reads without telling colours apart; badges also carry the word.
 */
const GLYPHS: Readonly<Record<Shape, JSX.Element>> = {
  up: (<><circle cx="8" cy="8" r="7.5" class="fill" /><path d="M4.6 8.3l2.3 2.3 4.6-4.9" class="ink" /></>),
  down: (<><path d="M5 .5h6L15.5 5v6L11 15.5H5L.5 11V5z" class="fill" /><path d="M5.4 5.4l5.2 5.2M10.6 5.4l-5.2 5.2" class="ink" /></>),
  oos: (<><circle cx="8" cy="8" r="6.3" class="ring" /><path d="M3.6 12.4l8.8-8.8" class="ring" /></>),
  offline: (<><circle cx="8" cy="8" r="6.3" class="ring dashed" /></>),
  // An outlined diamond: a filled one with a white question mark is the replacement character (U+FFFD), a glyph for "broken text".
  unknown: (<><path d="M8 1L15 8 8 15 1 8z" class="ring thin" /><path d="M6.1 6.3a1.9 1.9 0 1 1 2.7 1.7c-.5.2-.8.6-.8 1.1v.4" class="ring thin" /><circle cx="8" cy="11.6" r="1" class="fill" /></>),
  restricted: (<><path d="M8 1l7.3 13.3H.7z" class="fill" /><path d="M8 5.6v4.2" class="ink" /><circle cx="8" cy="12" r=".9" class="dot" /></>),
  other: (<><rect x="2" y="2" width="12" height="12" rx="2" class="fill" /></>),
};

export function StatusIcon({ status, size = 16 }: { status: string; size?: number }) {
  const shape = SHAPES[status] ?? 'other';
  return (
    <svg class={`status-icon ${statusClass(status)}`} viewBox="0 0 16 16" width={size} height={size} aria-hidden="true">
      {GLYPHS[shape]}
    </svg>
  );
}

/** Icon and word: the status as shown in lists. `count` turns it into a tally (`3 DOWN`). */
export function StatusBadge({ status, count }: { status: string; count?: number }) {
  return (
    <span class={`badge ${statusClass(status)}`} title={statusLabel(status)}>
      <StatusIcon status={status} />
      {count !== undefined && <b>{count.toLocaleString()}</b>}
      <span>{statusLabel(status)}</span>
    </span>
  );
}
