import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc CPU times (USER_HZ, almost always 100). */
export function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

/** CPU time a process used so far (user + system), in clock ticks, from /proc/<pid>/stat. */
export function cpuTicksOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return Number(fields[11]) + Number(fields[12]);
}

/** Resident set size now and its high-water mark, in MB (10^6 bytes), from /proc/<pid>/status. */
export function memoryOf(pid: number): { readonly rssMb: number; readonly hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: (kb('VmRSS') * 1024) / 1e6, hwmMb: (kb('VmHWM') * 1024) / 1e6 };
}

/** Measures one process over a stretch of wall time: CPU share of one core and peak RSS (sampled). */
export class ProcessMeter {
  readonly #ticksPerSecond = clockTicksPerSecond();
  readonly #startTicks: number;
  readonly #startTime = process.hrtime.bigint();
  readonly #timer: NodeJS.Timeout;
  #peakRssMb = 0;

  constructor(private readonly pid: number, sampleMs = 250) {
    this.#startTicks = cpuTicksOf(pid);
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), sampleMs);
  }

  /** Stops sampling; returns the CPU share (1 = one core busy all the time), peak sampled RSS and VmHWM. */
  stop(): { readonly cpuShare: number; readonly peakRssMb: number; readonly hwmMb: number; readonly seconds: number } {
    clearInterval(this.#timer);
    this.#sample();
    const seconds = Number(process.hrtime.bigint() - this.#startTime) / 1e9;
    const cpuSeconds = (cpuTicksOf(this.pid) - this.#startTicks) / this.#ticksPerSecond;
    return { cpuShare: cpuSeconds / seconds, peakRssMb: this.#peakRssMb, hwmMb: memoryOf(this.pid).hwmMb, seconds };
  }

  #sample(): void {
    this.#peakRssMb = Math.max(this.#peakRssMb, memoryOf(this.pid).rssMb);
  }
}
