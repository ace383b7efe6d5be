import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Spring Boot's `logfile` endpoint as Spring MVC serves a file resource: `text/plain`, `Accept-Ranges:
 * bytes`, and one byte range per request (`bytes=a-b`, `bytes=a-`, `bytes=-n`) as 206 with
 * `Content-Range`, or 416 with `Content-Range: bytes *\/size` when it starts past the end.
 */
export function serveLogfile(req: IncomingMessage, res: ServerResponse, file: Buffer): void {
  const headers: Record<string, string> = { 'content-type': 'text/plain;charset=UTF-8', 'accept-ranges': 'bytes' };
  const range = req.headers.range;
  const head = req.method === 'HEAD';
  if (!range) {
    res.writeHead(200, { ...headers, 'content-length': String(file.length) }).end(head ? undefined : file);
    return;
  }
  const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (!match || (match[1] === '' && match[2] === '')) {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${file.length}` }).end();
    return;
  }
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, file.length - Number(match[2]));
    end = file.length - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? file.length - 1 : Math.min(Number(match[2]), file.length - 1);
  }
  if (start >= file.length || start > end) {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${file.length}` }).end();
    return;
  }
  const part = file.subarray(start, end + 1);
  res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${file.length}`, 'content-length': String(part.length) }).end(head ? undefined : part);
}

const LOGGERS = ['c.e.billing.InvoiceController', 'c.e.billing.payments.PaymentClient', 'o.s.web.servlet.DispatcherServlet', 'com.zaxxer.hikari.HikariPool', 'c.e.billing.jobs.ReportJob'];
const MESSAGES = [
  'Listing invoices for customer 4711 (page 1 of 3)',
  'Payment authorised for invoice INV-2026-00981 in 184 ms',
  'Completed initialization in 2 ms',
  'HikariPool-1 - Pool stats (total=10, active=2, idle=8, waiting=0)',
  'Daily report written to /srv/reports/2026-01-05.csv (42 rows)',
];

/** `count` lines in Logback's default console pattern, timestamps one second apart; every 50th a WARN, every 170th an ERROR. */
export function logLines(count: number, from = 0, startMs = Date.UTC(2026, 0, 5, 9, 0, 0)): string {
  let text = '';
  for (let n = from; n < from + count; n += 1) {
    const time = new Date(startMs + n * 1000).toISOString().replace('T', ' ').replace('Z', '');
    const level = n % 170 === 169 ? 'ERROR' : n % 50 === 49 ? ' WARN' : ' INFO';
    const message = level === 'ERROR' ? `Payment provider timed out for invoice INV-2026-${String(n).padStart(5, '0')}` : MESSAGES[n % MESSAGES.length];
    text += `${time} ${level} 4242 --- [billing] [nio-8080-exec-${(n % 8) + 1}] ${LOGGERS[n % LOGGERS.length]!.padEnd(36)} : ${message} #${n}\n`;
  }
  return text;
}
