import { ApiError, apiUrl } from '../../../api';

/** How much one request reads: the tail on opening, and each "earlier" step. */
export const CHUNK_BYTES = 256 * 1024;
/** Beyond this many lines the far end is dropped: following a busy log must not grow the tab without bound. */
const MAX_LINES = 200_000;
const NEWLINE = 0x0a;

const decoder = new TextDecoder('utf-8');
/** Byte buffers of any backing store (subarrays of a fetched body included). */
type Bytes = Uint8Array<ArrayBufferLike>;
const EMPTY: Bytes = new Uint8Array(0);

/** What one ranged read returned: the bytes, where they start, and the file's size. */
interface Slice {
  readonly bytes: Bytes;
  readonly start: number;
  readonly total: number;
  /** 416: the range starts at or after the end of the file. */
  readonly unsatisfiable: boolean;
}

/**
 * A window onto an instance's log file, read with HTTP Range requests through Vigil's proxy
 * (Spring Boot's `logfile` endpoint serves ranges): the tail first, earlier parts on demand, new
 * bytes while following. Lines are split on bytes, not text, so a UTF-8 character cut by a range
 * boundary is joined again before decoding. The file is never read whole.
 */
export class LogTail {
  /** Complete lines held, oldest first, and the byte length of each (newline included). */
  lines: string[] = [];
  #sizes: number[] = [];
  /** Byte offset of the first held line; bytes before it belong to a line not yet held whole. */
  start = 0;
  /** Byte offset just after the last complete line. */
  end = 0;
  /** The file's size as last reported. */
  total = 0;
  /** Bytes of the cut-off line before `start`, kept to complete it when earlier bytes come. */
  #head = EMPTY;
  /** Bytes after the last newline: a line still being written. */
  #pending = EMPTY;
  /** Increases on every change. */
  version = 0;

  constructor(private readonly path: string) {}

  /** The line being written (no newline yet), shown after the complete ones. */
  get partial(): string {
    return decoder.decode(this.#pending).replace(/\r$/, '');
  }

  get atStart(): boolean {
    return this.start === 0;
  }

  /** Reads the last `CHUNK_BYTES` of the file, replacing whatever was held. */
  async loadTail(signal?: AbortSignal): Promise<void> {
    const slice = await this.#read(`bytes=-${CHUNK_BYTES}`, signal);
    this.lines = [];
    this.#sizes = [];
    this.total = slice.total;
    this.end = slice.start;
    this.start = slice.start;
    this.#head = EMPTY;
    this.#pending = EMPTY;
    this.#append(slice.bytes, slice.start > 0);
  }

  /**
   * Reads what was written since the last read. A file now shorter than what was read was
   * rotated or truncated: the tail of the new file is read instead. True when anything changed.
   */
  async follow(signal?: AbortSignal): Promise<boolean> {
    const from = this.end + this.#pending.length;
    // From the last byte already held: the range is satisfiable even when nothing was written
    // (a 416 would be logged by the browser every second), and a file that shrank shows in its size.
    const overlap = from > 0 ? 1 : 0;
    const slice = await this.#read(`bytes=${from - overlap}-`, signal);
    if (slice.total < from) {
      await this.loadTail(signal);
      return true;
    }
    this.total = slice.total;
    // A server that ignores Range sends the whole file from 0: only what is new counts.
    const fresh = slice.bytes.subarray(Math.max(0, from - slice.start));
    if (slice.unsatisfiable || fresh.length === 0) return false;
    this.#append(concat(this.#pending, fresh), false);
    return true;
  }

  /** Reads the `CHUNK_BYTES` before the first held line and puts their lines in front. */
  async loadEarlier(signal?: AbortSignal): Promise<number> {
    if (this.start === 0) return 0;
    const from = Math.max(0, this.start - this.#head.length - CHUNK_BYTES);
    const to = this.start - this.#head.length - 1;
    const slice = to >= from ? await this.#read(`bytes=${from}-${to}`, signal) : { bytes: EMPTY, start: from };
    const bytes = concat(slice.bytes.subarray(0, to - from + 1), this.#head);
    const { lines, sizes, head } = splitLines(bytes, from > 0);
    this.lines = [...lines, ...this.lines];
    this.#sizes = [...sizes, ...this.#sizes];
    this.#head = head;
    this.start = from + head.length;
    this.#trim('end');
    this.version += 1;
    return lines.length;
  }

  #append(bytes: Bytes, cutHead: boolean): void {
    const { lines, sizes, head, rest } = splitLines(bytes, cutHead);
    if (cutHead) {
      this.#head = head;
      this.start += head.length;
      this.end = this.start;
    }
    this.lines.push(...lines);
    this.#sizes.push(...sizes);
    this.end += sizes.reduce((sum, size) => sum + size, 0);
    this.#pending = rest;
    this.#trim('start');
    this.version += 1;
  }

  /** Keeps at most MAX_LINES, dropping from the other end than the one just added to. */
  #trim(from: 'start' | 'end'): void {
    const excess = this.lines.length - MAX_LINES;
    if (excess <= 0) return;
    if (from === 'start') {
      const dropped = this.#sizes.splice(0, excess).reduce((sum, size) => sum + size, 0);
      this.lines.splice(0, excess);
      this.start += dropped;
      this.#head = EMPTY;
    } else {
      const dropped = this.#sizes.splice(MAX_LINES).reduce((sum, size) => sum + size, 0);
      this.lines.splice(MAX_LINES);
      this.end -= dropped;
      this.#pending = EMPTY;
    }
  }

  async #read(range: string, signal?: AbortSignal): Promise<Slice> {
    let res: Response;
    try {
      res = await fetch(apiUrl(this.path), { headers: { accept: 'text/plain, */*', range }, ...(signal ? { signal } : {}) });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(0, 'Vigil cannot be reached');
    }
    const contentRange = res.headers.get('content-range') ?? '';
    if (res.status === 416) {
      const total = /\/(\d+)/.exec(contentRange);
      return { bytes: EMPTY, start: 0, total: total ? Number(total[1]) : 0, unsatisfiable: true };
    }
    if (!res.ok) throw new ApiError(res.status, `${res.status}: ${res.statusText || 'the log file could not be read'}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const parsed = /bytes\s+(\d+)-(\d+)\/(\d+|\*)/.exec(contentRange);
    if (res.status === 206 && parsed) {
      return { bytes, start: Number(parsed[1]), total: parsed[3] === '*' ? Number(parsed[2]) + 1 : Number(parsed[3]), unsatisfiable: false };
    }
    return { bytes, start: 0, total: bytes.length, unsatisfiable: false };
  }
}

/**
 * Splits bytes into lines at newlines. With `cutHead`, the bytes before the first newline are a
 * line cut by the range: returned as `head`, not as a line. Bytes after the last newline are `rest`.
 */
function splitLines(bytes: Bytes, cutHead: boolean): { lines: string[]; sizes: number[]; head: Bytes; rest: Bytes } {
  const lines: string[] = [];
  const sizes: number[] = [];
  let from = 0;
  let head = EMPTY;
  if (cutHead) {
    const first = bytes.indexOf(NEWLINE);
    if (first < 0) return { lines, sizes, head: bytes, rest: EMPTY };
    head = bytes.subarray(0, first + 1);
    from = first + 1;
  }
  for (let at = bytes.indexOf(NEWLINE, from); at >= 0; at = bytes.indexOf(NEWLINE, from)) {
    lines.push(decoder.decode(bytes.subarray(from, at)).replace(/\r$/, ''));
    sizes.push(at + 1 - from);
    from = at + 1;
  }
  return { lines, sizes, head, rest: bytes.slice(from) };
}

function concat(a: Bytes, b: Bytes): Bytes {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}
