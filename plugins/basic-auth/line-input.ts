import { StringDecoder } from 'node:string_decoder';

/** What `next()` yields when the user pressed Ctrl-C in raw mode. */
export const INTERRUPTED = Symbol('interrupted');

type RawModeStream = NodeJS.ReadableStream & { setRawMode?: (mode: boolean) => unknown };

/**
 * Lines read from a stream, one `next()` at a time, without consuming more than it buffers.
 * In raw mode (a terminal with echo off) it does the line editing the terminal no longer does:
 * Enter ends a line, Backspace deletes, Ctrl-C interrupts, Ctrl-D ends the input.
 */
export class LineInput {
  readonly #stream: RawModeStream;
  readonly #raw: boolean;
  readonly #decoder = new StringDecoder('utf8');
  readonly #lines: string[] = [];
  #current = '';
  #ended = false;
  #interrupted = false;
  #wake: (() => void) | undefined;

  constructor(stream: NodeJS.ReadableStream, raw: boolean) {
    this.#stream = stream;
    this.#raw = raw && typeof this.#stream.setRawMode === 'function';
    if (this.#raw) this.#stream.setRawMode!(true);
    stream.on('data', this.#onData);
    stream.on('end', this.#onEnd);
    stream.on('error', this.#onEnd);
    stream.resume();
  }

  /** Whether keystrokes are hidden (the terminal echoes nothing). */
  get hidden(): boolean {
    return this.#raw;
  }

  /** The next line without its line ending; undefined at the end of the input. */
  async next(): Promise<string | undefined | typeof INTERRUPTED> {
    for (;;) {
      if (this.#interrupted) return INTERRUPTED;
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      if (this.#ended) {
        const rest = this.#current;
        this.#current = '';
        return rest === '' ? undefined : rest;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Detaches from the stream and gives the terminal its echo back. */
  close(): void {
    this.#stream.removeListener('data', this.#onData);
    this.#stream.removeListener('end', this.#onEnd);
    this.#stream.removeListener('error', this.#onEnd);
    if (this.#raw) this.#stream.setRawMode!(false);
    this.#stream.pause();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    for (const char of text) this.#accept(char);
    this.#notify();
  };

  readonly #onEnd = (): void => {
    this.#ended = true;
    this.#notify();
  };

  #accept(char: string): void {
    if (char === '\n' || (this.#raw && char === '\r')) {
      this.#lines.push(this.#current.replace(/\r$/, ''));
      this.#current = '';
    } else if (this.#raw && char === '\u0003') {
      this.#interrupted = true;
    } else if (this.#raw && char === '\u0004') {
      this.#ended = true;
    } else if (this.#raw && (char === '\u007f' || char === '\b')) {
      this.#current = [...this.#current].slice(0, -1).join('');
    } else {
      this.#current += char;
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
