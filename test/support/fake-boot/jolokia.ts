import type { IncomingMessage, ServerResponse } from 'node:http';

interface Attribute { value: unknown; readonly type: string; readonly rw: boolean; readonly desc: string }
interface Operation { readonly args: readonly { name: string; type: string; desc: string }[]; readonly ret: string; readonly desc: string; readonly run: (args: unknown[]) => unknown }
interface MBean { readonly desc: string; readonly class: string; readonly attr: Record<string, Attribute>; readonly op: Record<string, Operation> }

/** What the tests look at: every request and every write and invocation the agent took. */
export interface JolokiaLog {
  readonly requests: Record<string, unknown>[];
  readonly writes: { mbean: string; attribute: string; value: unknown }[];
  readonly invocations: { mbean: string; operation: string; arguments: unknown[] }[];
}

/**
 * A Jolokia agent's JSON protocol over a few MBeans such as a JVM has (java.lang:type=Memory,
 * Threading, a Spring application's own): `list`, `read` (one attribute or all), `write` (answers
 * the old value) and `exec` (by name, or `name(type,...)` for a signature), single or bulk POSTs.
 * Errors come as Jolokia sends them: HTTP 200 with `status`, `error_type` and `error` in the body.
 */
export function jolokiaAgent(): { handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void; log: JolokiaLog } {
  const log: JolokiaLog = { requests: [], writes: [], invocations: [] };
  let verbose = false;
  const beans: Record<string, MBean> = {
    'java.lang:type=Memory': {
      desc: 'Information on the management interface of the MBean', class: 'sun.management.MemoryImpl',
      attr: {
        HeapMemoryUsage: { value: { init: 262_144_000, committed: 402_653_184, max: 4_169_138_176, used: 187_654_320 }, type: 'javax.management.openmbean.CompositeData', rw: false, desc: 'HeapMemoryUsage' },
        ObjectPendingFinalizationCount: { value: 0, type: 'int', rw: false, desc: 'ObjectPendingFinalizationCount' },
        Verbose: { get value() { return verbose; }, set value(next) { verbose = Boolean(next); }, type: 'boolean', rw: true, desc: 'Verbose' },
      },
      op: { gc: { args: [], ret: 'void', desc: 'gc', run: () => null } },
    },
    'java.lang:type=Threading': {
      desc: 'Information on the management interface of the MBean', class: 'sun.management.ThreadImpl',
      attr: {
        ThreadCount: { value: 41, type: 'int', rw: false, desc: 'ThreadCount' },
        PeakThreadCount: { value: 57, type: 'int', rw: false, desc: 'PeakThreadCount' },
        ThreadCpuTimeEnabled: { value: true, type: 'boolean', rw: true, desc: 'ThreadCpuTimeEnabled' },
      },
      op: {
        getThreadCpuTime: { args: [{ name: 'p0', type: 'long', desc: 'p0' }], ret: 'long', desc: 'getThreadCpuTime', run: ([id]) => Number(id) * 1_000_000 },
        resetPeakThreadCount: { args: [], ret: 'void', desc: 'resetPeakThreadCount', run: () => null },
      },
    },
    'com.example.billing:name=invoiceService,type=InvoiceService': {
      desc: 'Invoice service', class: 'com.example.billing.InvoiceService',
      attr: {
        OpenInvoices: { value: 128, type: 'int', rw: false, desc: 'Invoices not paid yet' },
        ReminderDays: { value: 14, type: 'int', rw: true, desc: 'Days before a reminder goes out' },
      },
      op: {
        sendReminders: { args: [{ name: 'customer', type: 'java.lang.String', desc: 'customer id' }, { name: 'dryRun', type: 'boolean', desc: 'only count' }], ret: 'int', desc: 'Send reminders for one customer', run: ([customer, dryRun]) => (dryRun ? 0 : String(customer).length) },
      },
    },
  };
  const answer = (request: Record<string, unknown>): Record<string, unknown> => {
    log.requests.push(request);
    const base = { request, timestamp: 1_767_600_000 };
    const fail = (status: number, type: string, error: string) => ({ ...base, status, error_type: type, error });
    const mbean = typeof request.mbean === 'string' ? beans[request.mbean] : undefined;
    switch (request.type) {
      case 'version':
        return { ...base, status: 200, value: { agent: '2.1.0', protocol: '7.3', config: {}, info: {} } };
      case 'list': {
        const value: Record<string, Record<string, unknown>> = {};
        for (const [name, bean] of Object.entries(beans)) {
          const [domain, props] = name.split(/:(.*)/s) as [string, string];
          (value[domain] ??= {})[props] = {
            desc: bean.desc, class: bean.class,
            attr: Object.fromEntries(Object.entries(bean.attr).map(([key, { type, rw, desc }]) => [key, { type, rw, desc }])),
            op: Object.fromEntries(Object.entries(bean.op).map(([key, { args, ret, desc }]) => [key, { args, ret, desc }])),
          };
        }
        return { ...base, status: 200, value };
      }
      case 'read': {
        if (!mbean) return fail(404, 'javax.management.InstanceNotFoundException', `${String(request.mbean)}`);
        if (request.attribute === undefined) return { ...base, status: 200, value: Object.fromEntries(Object.entries(mbean.attr).map(([key, attribute]) => [key, attribute.value])) };
        const attribute = mbean.attr[String(request.attribute)];
        return attribute ? { ...base, status: 200, value: attribute.value } : fail(404, 'javax.management.AttributeNotFoundException', `No such attribute: ${String(request.attribute)}`);
      }
      case 'write': {
        const attribute = mbean?.attr[String(request.attribute)];
        if (!mbean || !attribute) return fail(404, 'javax.management.AttributeNotFoundException', `No such attribute: ${String(request.attribute)}`);
        if (!attribute.rw) return fail(403, 'java.lang.SecurityException', `Attribute ${String(request.attribute)} is read-only`);
        const old = attribute.value;
        attribute.value = request.value;
        log.writes.push({ mbean: String(request.mbean), attribute: String(request.attribute), value: request.value });
        return { ...base, status: 200, value: old };
      }
      case 'exec': {
        const name = String(request.operation).replace(/\(.*\)$/, '');
        const operation = mbean?.op[name];
        if (!mbean || !operation) return fail(404, 'java.lang.IllegalArgumentException', `No operation ${String(request.operation)} found on MBean ${String(request.mbean)}`);
        const args = Array.isArray(request.arguments) ? request.arguments as unknown[] : [];
        log.invocations.push({ mbean: String(request.mbean), operation: String(request.operation), arguments: args });
        return { ...base, status: 200, value: operation.run(args) };
      }
      default:
        return fail(400, 'java.lang.IllegalArgumentException', `Unknown request type ${String(request.type)}`);
    }
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 400, error_type: 'java.lang.IllegalArgumentException', error: 'Invalid JSON request' }));
      return;
    }
    const reply = Array.isArray(parsed) ? parsed.map((one) => answer(one as Record<string, unknown>)) : answer(parsed as Record<string, unknown>);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    void req;
  };
  return { handle, log };
}
