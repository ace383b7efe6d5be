import { parseDuration } from '../config/duration.js';

export interface ProbeIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

const RETRY_MS = 250;

/**
 * `vigil probe URL [--wait DURATION]`: GETs a probe (`/health/readiness`, say) and exits 0 on a
 * 200, 1 otherwise; with `--wait` it asks again until a 200 or the time is up. For supervisors
 * without an HTTP client of their own: systemd's `ExecStartPost` waits with it until Vigil is
 * ready. Prints the last answer's status and body.
 */
export async function runProbeCommand(args: readonly string[], io: ProbeIo): Promise<number> {
  const [url, ...rest] = args;
  let waitMs = 0;
  if (rest.length === 2 && rest[0] === '--wait') {
    const parsed = parseDuration(rest[1]!);
    if (parsed === undefined) return usage(io, `--wait: not a duration: ${rest[1]}`);
    waitMs = parsed;
  } else if (rest.length > 0) {
    return usage(io, `unexpected arguments: ${rest.join(' ')}`);
  }
  if (!url || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return usage(io, 'the first argument must be an http(s) URL');
  const deadline = Date.now() + waitMs;
  for (;;) {
    let line: string;
    try {
      const reply = await fetch(url, { signal: AbortSignal.timeout(Math.max(1000, Math.min(5000, waitMs))) });
      const body = (await reply.text()).slice(0, 2000);
      line = `${reply.status} ${body}`;
      if (reply.status === 200) {
        io.stdout.write(`${line}\n`);
        return 0;
      }
    } catch (error) {
      line = `no answer: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
    }
    if (Date.now() + RETRY_MS > deadline) {
      io.stderr.write(`probe ${url}: ${line}\n`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

function usage(io: ProbeIo, problem: string): number {
  io.stderr.write(`probe: ${problem}\nusage: vigil probe URL [--wait DURATION]\n`);
  return 2;
}
