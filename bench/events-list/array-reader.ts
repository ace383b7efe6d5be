/**
 * Reads a top-level JSON array as it arrives, text chunk by text chunk, and hands each element,
 * parsed, to `onItem`; only the element being read is held. So a client can check a response of
 * hundreds of MB (every element is valid JSON, the array is closed) without holding its body.
 */
export class JsonArrayReader {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #opened = false;
  #closed = false;
  /** The start of the element being read, from earlier chunks. */
  #partial = '';
  count = 0;

  constructor(private readonly onItem: (item: unknown) => void) {}

  /** Whether the closing `]` was read. */
  get closed(): boolean {
    return this.#closed;
  }

  feed(text: string): void {
    let from = 0;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 0x5c) this.#escaped = true;
        else if (c === 0x22) this.#inString = false;
        continue;
      }
      if (this.#closed && c > 0x20) throw new Error(`text after the array's end at ${i}`);
      if (c === 0x22) {
        this.#inString = true;
      } else if (c === 0x5b || c === 0x7b) {
        this.#depth += 1;
        if (this.#depth === 1) {
          if (c !== 0x5b || this.#opened) throw new Error('the body is not one JSON array');
          this.#opened = true;
          from = i + 1;
        }
      } else if (c === 0x5d || c === 0x7d) {
        this.#depth -= 1;
        if (this.#depth < 0) throw new Error(`unbalanced '${String.fromCharCode(c)}' at ${i}`);
        if (this.#depth === 0) {
          this.#element(text.slice(from, i), true);
          this.#closed = true;
        }
      } else if (c === 0x2c && this.#depth === 1) {
        this.#element(text.slice(from, i), false);
        from = i + 1;
      }
    }
    if (this.#depth >= 1) this.#partial += text.slice(from);
  }

  #element(tail: string, last: boolean): void {
    const text = this.#partial + tail;
    this.#partial = '';
    // `[]` closes with no element; a `,` or `]` with nothing before it otherwise is an error JSON.parse reports.
    if (last && this.count === 0 && text.trim() === '') return;
    this.onItem(JSON.parse(text));
    this.count += 1;
  }
}
