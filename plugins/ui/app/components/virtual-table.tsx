import type { ComponentChildren } from 'preact';
import { VirtualList } from './virtual-list';

export interface Column<T> {
  readonly label: string;
  /** A CSS grid track: `12rem`, `minmax(8rem, 1fr)`. */
  readonly width: string;
  readonly render: (item: T) => ComponentChildren;
  readonly className?: string;
}

interface Props<T> {
  readonly items: readonly T[];
  readonly columns: readonly Column<T>[];
  readonly keyOf: (item: T) => string;
  readonly label: string;
  readonly rowHeight?: number;
  readonly selected?: string | null;
  readonly onSelect?: (item: T) => void;
  readonly rowClass?: (item: T) => string;
}

/**
 * A table of any length that draws only the rows in view (VirtualList underneath): columns line
 * up through one CSS grid template, set on each row through the DOM (the page's CSP allows no
 * inline style attributes, and needs none: Preact sets `style` objects property by property).
 */
export function VirtualTable<T>({ items, columns, keyOf, label, rowHeight = 34, selected, onSelect, rowClass }: Props<T>) {
  const template = { gridTemplateColumns: columns.map((column) => column.width).join(' ') };
  return (
    <div class="vtable" role="table" aria-label={label}>
      <div class="vtable-head" role="row" style={template}>
        {columns.map((column) => <span role="columnheader" key={column.label} class={column.className?.includes('num') ? 'num' : undefined}>{column.label}</span>)}
      </div>
      <VirtualList items={items} rowHeight={rowHeight} keyOf={keyOf} label={label} render={(item) => {
        const key = keyOf(item);
        return (
          <div class={`row vtable-row${selected === key ? ' selected' : ''}${onSelect ? ' clickable' : ''}${rowClass ? ` ${rowClass(item)}` : ''}`} role="row" style={template}
            data-key={key} onClick={onSelect ? () => onSelect(item) : undefined}>
            {columns.map((column) => <span role="cell" key={column.label} class={column.className} title={titleOf(column.render(item))}>{column.render(item)}</span>)}
          </div>
        );
      }} />
    </div>
  );
}

/** A cell's full text as its tooltip, where the cell is plain text (a long name cut off by the column). */
function titleOf(content: ComponentChildren): string | undefined {
  return typeof content === 'string' || typeof content === 'number' ? String(content) : undefined;
}
