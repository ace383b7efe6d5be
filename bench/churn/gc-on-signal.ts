/**
 * Loaded into the daemon by bench/churn only (`node --expose-gc --import`), never by Vigil
 * itself: on SIGUSR2 it runs full garbage collections and prints one `churn-gc {json}` line with
 * the memory figures after them, so the benchmark reads RSS after a full GC without any HTTP
 * endpoint for it in the product.
 */
const gc = (globalThis as { gc?: () => void }).gc;

process.on('SIGUSR2', () => {
  if (!gc) {
    process.stdout.write('churn-gc {"error":"start node with --expose-gc"}\n');
    return;
  }
  gc();
  // A second pass after pending callbacks ran: what finalizers and weak references freed goes too.
  setTimeout(() => {
    gc();
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    process.stdout.write(`churn-gc ${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers })}\n`);
  }, 200);
});
