import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';

/** The words of a search, lower-cased: every one must appear for an item to match. */
export function wordsOf(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Items whose text contains every word of the query; the same list when the query is empty. */
export function useSearch<T>(items: readonly T[], textOf: (item: T) => string): [string, (query: string) => void, readonly T[]] {
  const [query, setQuery] = useState('');
  const filtered = useMemo(() => {
    const words = wordsOf(query);
    if (words.length === 0) return items;
    return items.filter((item) => {
      const text = textOf(item).toLowerCase();
      return words.every((word) => text.includes(word));
    });
  }, [items, query]);
  return [query, setQuery, filtered];
}

export function SearchInput({ value, onInput, label, placeholder }: { value: string; onInput: (value: string) => void; label: string; placeholder?: string }) {
  return (
    <input type="search" class="filter" placeholder={placeholder ?? label} aria-label={label} value={value}
      onInput={(event) => onInput((event.currentTarget as HTMLInputElement).value)} />
  );
}

/** The toolbar every list view has: its search, a count, what else it needs, and Refresh. */
export function ViewToolbar({ children, count, loading, onRefresh }: { children?: ComponentChildren; count?: string; loading?: boolean; onRefresh?: () => void }) {
  return (
    <div class="toolbar">
      {children}
      <span class="muted" role="status">{loading ? 'Loading…' : count}</span>
      <span class="spacer" />
      {onRefresh && <button type="button" onClick={onRefresh}>Refresh</button>}
    </div>
  );
}

export const plural = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString()} ${count === 1 ? one : many}`;

/**
 * Boot's context-scoped answers (`{contexts: {application: {...}, parent: {...}}}`): each context
 * with its name, the application's own first.
 */
export function contextsOf<T>(body: { contexts?: Readonly<Record<string, T>> } | undefined): [string, T][] {
  return Object.entries(body?.contexts ?? {});
}

/** `PT0.023S` (Boot 3's durations) in milliseconds; numbers (Boot 2's `timeTaken`) are already milliseconds. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/i.exec(value);
  if (!match) return undefined;
  return (Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0)) * 1000;
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '–';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A class name's simple part, `com.example.Foo$Bar` → `Foo$Bar`, for narrow columns (the full name stays in the title). */
export const simpleName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/** A side panel showing one item in full, as the journal's. */
export function DetailPanel({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  return (
    <aside class="card detail-panel" aria-label={title}>
      <h2><span class="mono">{title}</span> <button type="button" class="link" onClick={onClose} aria-label="Close">✕</button></h2>
      {children}
    </aside>
  );
}
