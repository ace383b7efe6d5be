import winston from 'winston';
import type { LogFormat, LogLevel } from '../config/kernel-schema.js';
import { escapeControlCharacters, maskUrlPasswordsIn } from './log-line.js';
import type { Logger } from '../core/plugin-api.js';

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Where lines go; stdout by default (journald reads it). Tests pass a stream to read them back. */
  readonly stream?: NodeJS.WritableStream;
}

/** `2026-11-22T10:00:00.000Z info  [monitor] message key=value` */
const textFormat = winston.format.printf((record) => {
  const { timestamp, level, message, scope, ...meta } = record;
  const extra = Object.entries(meta)
    .filter(([key]) => typeof key === 'string')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${String(timestamp)} ${level.padEnd(5)} ${scope ? `[${String(scope)}] ` : ''}${String(message)}${extra ? ` ${extra}` : ''}`;
});

/** Where winston keeps the formatted line (triple-beam's MESSAGE). */
const LINE = Symbol.for('message');

/**
 * The last step for every record: the password of every URL in the line is masked, and in the
 * text format control characters are escaped, so a record is always exactly one line.
 */
const safeLine = (format: LogFormat) => winston.format((record) => {
  const line = (record as unknown as Record<symbol, unknown>)[LINE];
  if (typeof line !== 'string') return record;
  const masked = maskUrlPasswordsIn(line);
  (record as unknown as Record<symbol, unknown>)[LINE] = format === 'text' ? escapeControlCharacters(masked) : masked;
  return record;
})();

/** The process's logger: its level can change while running (`log-level` on reload). */
export interface RootLogger extends Logger {
  setLevel(level: LogLevel): void;
}

/** The root logger: winston, text or one JSON object per line. */
export function createLogger(options: LoggerOptions): RootLogger {
  const logger = winston.createLogger({
    level: options.level,
    format: winston.format.combine(
      winston.format.timestamp(),
      options.format === 'json' ? winston.format.json() : textFormat,
      safeLine(options.format),
    ),
    transports: [new winston.transports.Stream({ stream: options.stream ?? process.stdout })],
  });
  return { ...wrap(logger, undefined), setLevel: (level) => { logger.level = level; } };
}

function wrap(logger: winston.Logger, scope: string | undefined): Logger {
  // Metadata is wrapped under its own keys by the callers; winston spreads it into the record.
  const write = (level: LogLevel) => (message: string, meta?: Record<string, unknown>) => {
    // winston formats every record and only its transports drop those below the level: without
    // this check each `debug` line (one per stream opened, say) is built in full and thrown away.
    if (!logger.isLevelEnabled(level)) return;
    logger.log(level, message, scope ? { ...meta, scope } : meta);
  };
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    child: (child) => wrap(logger, scope ? `${scope}.${child}` : child),
  };
}
