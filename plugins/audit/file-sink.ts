import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';

/**
 * `audit.file`: one JSON line per entry, for a log shipper. Lines are written in order, several
 * per write when they come faster than the disk takes them. Past `maxSize` the file is renamed
 * `<file>.1` (the older ones shift to `.2` ... and the one past `maxFiles` is deleted) and a new
 * one begun, so the trail on disk stays bounded.
 */
export class FileSink {
  #handle: FileHandle | undefined;
  #size = 0;
  #pending: { line: string; done: (error?: unknown) => void }[] = [];
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(readonly path: string, private readonly maxSize: number, private readonly maxFiles: number) {}

  /** Appends one line; resolves once it is written, rejects when it could not be. */
  write(entry: unknown): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the audit file is closed'));
    const line = `${JSON.stringify(entry)}\n`;
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ line, done: (error) => (error === undefined ? resolve() : reject(error)) });
      this.#flushing ??= this.#flush();
    });
  }

  /** Writes what is queued and closes the file. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing) await this.#flushing;
    await this.#handle?.close().catch(() => undefined);
    this.#handle = undefined;
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, 512);
      try {
        await this.#writeBatch(batch.map((item) => item.line));
        for (const item of batch) item.done();
      } catch (error) {
        // The next write opens the file again: a disk that was full, or a directory restored, works again.
        await this.#handle?.close().catch(() => undefined);
        this.#handle = undefined;
        for (const item of batch) item.done(error);
      }
    }
    // Cleared here, in the same step as the last check of the queue: a write queued after this starts a new flush.
    this.#flushing = undefined;
  }

  /** Writes lines in order, as few writes as the size limit allows: a line that does not fit in a non-empty file begins the next one. */
  async #writeBatch(lines: string[]): Promise<void> {
    await this.#open();
    let run = '';
    let runBytes = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line);
      if (this.#size + runBytes > 0 && this.#size + runBytes + bytes > this.maxSize) {
        if (runBytes > 0) await this.#append(run, runBytes);
        run = '';
        runBytes = 0;
        if (this.#size > 0) await this.#rotate();
      }
      run += line;
      runBytes += bytes;
    }
    if (runBytes > 0) await this.#append(run, runBytes);
  }

  async #open(): Promise<void> {
    if (this.#handle) return;
    this.#handle = await open(this.path, 'a', 0o640);
    this.#size = (await this.#handle.stat()).size;
  }

  async #append(text: string, bytes: number): Promise<void> {
    await this.#handle!.write(text);
    this.#size += bytes;
  }

  async #rotate(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
    await rm(`${this.path}.${this.maxFiles}`, { force: true });
    for (let n = this.maxFiles - 1; n >= 1; n -= 1) {
      if (await exists(`${this.path}.${n}`)) await rename(`${this.path}.${n}`, `${this.path}.${n + 1}`);
    }
    await rename(this.path, `${this.path}.1`);
    this.#handle = await open(this.path, 'a', 0o640);
    this.#size = 0;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
