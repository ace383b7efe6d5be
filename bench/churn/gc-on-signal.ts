/**
 * Loaded into the daemon by bench/churn only (`node --expose-gc --import`), never by Vigil
 * itself: on SIGUSR2 it runs full garbage collections and prints one `churn-gc {json}` line with
 * the memory figures after them, so the benchmark reads RSS after a full GC without any HTTP
 * endpoint for it in the product.
 */
const gc = (globalThis as { gc?: () => void }).gc;

/** RSS is read every this often after the GCs until it holds still. */
const SETTLE_STEP_MS = 100;
/** Holding still: two reads in a row within this much of each other. */
const SETTLED_BYTES = 128 * 1024;
/** A read is taken after this long however RSS moves. */
const SETTLE_LIMIT_MS = 3000;

/**
 * V8 hands the pages a full GC freed back to the system from a background thread, after the GC
 * returns: RSS read at once lands anywhere in that release (bench/REPORT.md: 5–6 MB apart within
 * milliseconds). The GC is over when RSS holds still.
 */
function whenSettled(report: (rssAtOnce: number) => void): void {
  const atOnce = process.memoryUsage.rss();
  let last = atOnce;
  const started = Date.now();
  const step = () => {
    const now = process.memoryUsage.rss();
    if (Math.abs(now - last) < SETTLED_BYTES || Date.now() - started >= SETTLE_LIMIT_MS) return report(atOnce);
    last = now;
    setTimeout(step, SETTLE_STEP_MS);
  };
  setTimeout(step, SETTLE_STEP_MS);
}

process.on('SIGUSR2', () => {
  if (!gc) {
    process.stdout.write('churn-gc {"error":"start node with --expose-gc"}\n');
    return;
  }
  gc();
  // A second pass after pending callbacks ran: what finalizers and weak references freed goes too.
  setTimeout(() => {
    gc();
    whenSettled((rssAtOnce) => {
      const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      process.stdout.write(`churn-gc ${JSON.stringify({ rss, rssAtOnce, heapUsed, heapTotal, external, arrayBuffers })}\n`);
    });
  }, 200);
});
