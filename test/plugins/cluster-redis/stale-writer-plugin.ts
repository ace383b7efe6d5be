import { LEASES, definePlugin } from '../../../core/plugin-api.js';

/**
 * A test plugin for the paused-holder scenario: it competes for the lease `stale-writer`,
 * remembers its token while it holds it, and on SIGCONT (woken from a SIGSTOP longer than the
 * lease) acts at once on the token it remembers, as a job that was paused mid-decision would:
 * it deregisters the instance named `victim`, fenced. Logs what came of it.
 */
export default definePlugin({
  name: 'stale-writer',
  configKey: null,
  setup() {},
  start(ctx) {
    const lease = ctx.services.use(LEASES)!.lease('stale-writer');
    let remembered: number | undefined;
    const timer = setInterval(() => {
      if (lease.held) remembered = lease.token;
    }, 20);
    timer.unref();
    ctx.signal.addEventListener('abort', () => clearInterval(timer));
    process.on('SIGCONT', () => {
      const victim = ctx.registry.list().find((instance) => instance.registration?.name === 'victim');
      if (!victim || remembered === undefined) {
        ctx.log.info('stale-writer: nothing to act on');
        return;
      }
      const token = remembered;
      // As a job would: while Redis cannot be asked (the pause may have timed out its connection),
      // try again; what counts is the answer Redis gives.
      const attempt = (left: number): void => {
        ctx.registry.deregister(victim.id, { fence: { lease: 'stale-writer', token } }).then(
          () => ctx.log.info(`stale-writer: applied with token ${token}`),
          (error: Error) => {
            if (error.name === 'StoreUnavailableError' && left > 0) setTimeout(() => attempt(left - 1), 200);
            else ctx.log.info(`stale-writer: refused (${error.name}) with token ${token}`);
          },
        );
      };
      attempt(50);
    });
  },
});
