import { readFileSync } from 'node:fs';

/**
 * Reads a V8 .heapsnapshot and prints where the bytes go: self and retained size grouped by
 * constructor (retained computed from the dominator tree, counting a group's outermost members
 * only), and the strings held most often. `node --max-old-space-size=8000
 * dist/bench/monitoring/heap-analyse.js FILE [PER]` divides by PER (instances) as well.
 */
interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const file = process.argv[2]!;
const per = Number(process.argv[3] ?? 1);
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { meta } = snap.snapshot;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nType = meta.node_fields.indexOf('type');
const nName = meta.node_fields.indexOf('name');
const nSize = meta.node_fields.indexOf('self_size');
const nEdges = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type');
const eTo = meta.edge_fields.indexOf('to_node');
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const weak = edgeTypes.indexOf('weak');
const shortcut = edgeTypes.indexOf('shortcut');
const count = snap.nodes.length / NF;

const firstEdge = new Uint32Array(count + 1);
for (let i = 0, e = 0; i < count; i += 1) {
  firstEdge[i] = e;
  e += snap.nodes[i * NF + nEdges]!;
  firstEdge[i + 1] = e;
}
const group = (i: number): string => {
  const type = nodeTypes[snap.nodes[i * NF + nType]!]!;
  const name = snap.strings[snap.nodes[i * NF + nName]!]!;
  if (type === 'object' && name === 'Object') return `Object{${propertyNames(i)}}`;
  if (type === 'object' || type === 'native') return name;
  if (type === 'closure') return `(closure) ${name}`;
  if (type === 'hidden' || type === 'code' || type === 'array') return `(${type}) ${name.slice(0, 40)}`;
  return `(${type})`;
};
const eName = meta.edge_fields.indexOf('name_or_index');
const property = edgeTypes.indexOf('property');
/** A plain object's first property names: tells an instance from an event from a registration. */
function propertyNames(i: number): string {
  const names: string[] = [];
  for (let e = firstEdge[i]!; e < firstEdge[i + 1]! && names.length < 5; e += 1) {
    if (snap.edges[e * EF + eType] === property) names.push(snap.strings[snap.edges[e * EF + eName]!]!);
  }
  return names.join(',');
}
const selfSize = (i: number) => snap.nodes[i * NF + nSize]!;
const targets = (i: number, visit: (to: number) => void) => {
  for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += 1) {
    const type = snap.edges[e * EF + eType]!;
    if (type === weak || type === shortcut) continue;
    visit(snap.edges[e * EF + eTo]! / NF);
  }
};

// Post-order from the root (node 0), iteratively.
const post = new Int32Array(count).fill(-1);
const order: number[] = [];
{
  const stack: number[] = [0];
  const cursor = new Uint32Array(count);
  const seen = new Uint8Array(count);
  seen[0] = 1;
  for (let i = 0; i < count; i += 1) cursor[i] = firstEdge[i]!;
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[v]! < firstEdge[v + 1]!) {
      const e = cursor[v]!;
      cursor[v] = e + 1;
      const type = snap.edges[e * EF + eType]!;
      if (type === weak || type === shortcut) continue;
      const to = snap.edges[e * EF + eTo]! / NF;
      if (seen[to]) continue;
      seen[to] = 1;
      stack.push(to);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      post[v] = order.length;
      order.push(v);
    }
  }
}
// Predecessors (reachable ones), CSR.
const predCount = new Uint32Array(count + 1);
for (let v = 0; v < count; v += 1) if (post[v]! >= 0) targets(v, (to) => { predCount[to + 1] += 1; });
for (let i = 0; i < count; i += 1) predCount[i + 1] += predCount[i]!;
const preds = new Uint32Array(predCount[count]!);
const fill = predCount.slice();
for (let v = 0; v < count; v += 1) if (post[v]! >= 0) targets(v, (to) => { preds[fill[to]!++] = v; });

// Cooper–Harvey–Kennedy dominators over post-order numbers.
const n = order.length;
const idom = new Int32Array(n).fill(-1);
idom[n - 1] = n - 1;
for (let changed = true; changed;) {
  changed = false;
  for (let b = n - 2; b >= 0; b -= 1) {
    const v = order[b]!;
    let best = -1;
    for (let k = predCount[v]!; k < predCount[v + 1]!; k += 1) {
      let p = post[preds[k]!]!;
      if (idom[p] === -1) continue;
      if (best === -1) { best = p; continue; }
      let q = best;
      while (p !== q) {
        while (p < q) p = idom[p]!;
        while (q < p) q = idom[q]!;
      }
      best = p;
    }
    if (best !== -1 && idom[b] !== best) { idom[b] = best; changed = true; }
  }
}
const retained = new Float64Array(n);
for (let b = 0; b < n; b += 1) retained[b] += selfSize(order[b]!);
for (let b = 0; b < n - 1; b += 1) retained[idom[b]!] += retained[b]!;

interface Row { self: number; retained: number; count: number }
const rows = new Map<string, Row>();
let total = 0;
for (let b = 0; b < n; b += 1) {
  const v = order[b]!;
  const name = group(v);
  const row = rows.get(name) ?? { self: 0, retained: 0, count: 0 };
  row.self += selfSize(v);
  row.count += 1;
  total += selfSize(v);
  // Retained only for a group's outermost members: nested ones are already inside.
  let up = idom[b]!;
  let nested = false;
  for (let hops = 0; hops < 50 && up !== n - 1; hops += 1, up = idom[up]!) if (group(order[up]!) === name) { nested = true; break; }
  if (!nested) row.retained += retained[b]!;
  rows.set(name, row);
}
const mb = (bytes: number) => (bytes / 1e6).toFixed(1).padStart(7);
const each = (bytes: number) => (per > 1 ? (bytes / per).toFixed(0).padStart(7) : '');
console.log(`${file}: ${n} reachable nodes, ${mb(total)} MB self${per > 1 ? `, ${(total / per).toFixed(0)} B per instance over ${per}` : ''}`);
const print = (title: string, key: 'self' | 'retained') => {
  console.log(`\n${title}\n     MB   B/inst    count  group`);
  for (const [name, row] of [...rows].sort((a, b) => b[1][key] - a[1][key]).slice(0, 40)) {
    console.log(`${mb(row[key])} ${each(row[key])} ${String(row.count).padStart(8)}  ${name}`);
  }
};
print('by self size', 'self');
print('by retained size (outermost of each group)', 'retained');

// Strings held most: the same text many times is a candidate for interning.
const strings = new Map<string, { count: number; bytes: number }>();
for (let b = 0; b < n; b += 1) {
  const v = order[b]!;
  const type = nodeTypes[snap.nodes[v * NF + nType]!];
  if (type !== 'string' && type !== 'concatenated string' && type !== 'sliced string') continue;
  const text = snap.strings[snap.nodes[v * NF + nName]!]!;
  const key = text.replace(/\d+/g, '#').slice(0, 80);
  const row = strings.get(key) ?? { count: 0, bytes: 0 };
  row.count += 1;
  row.bytes += selfSize(v);
  strings.set(key, row);
}
console.log('\nstrings by shape (digits as #)\n     MB    count  shape');
for (const [key, row] of [...strings].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 30)) {
  console.log(`${mb(row.bytes)} ${String(row.count).padStart(8)}  ${JSON.stringify(key)}`);
}

// Who holds the small things there are many of: retainer group and edge name.
const holders = new Map<string, number>();
const holderOf = (kind: string) => {
  holders.clear();
  for (let v = 0; v < count; v += 1) {
    if (post[v]! < 0) continue;
    for (let e = firstEdge[v]!; e < firstEdge[v + 1]!; e += 1) {
      const to = snap.edges[e * EF + eTo]! / NF;
      if (group(to) !== kind) continue;
      const type = snap.edges[e * EF + eType]!;
      const label = edgeTypes[type] === 'element' || edgeTypes[type] === 'hidden' ? `[${edgeTypes[type]}]` : snap.strings[snap.edges[e * EF + eName]!];
      const key = `${group(v).slice(0, 70)} .${label}`;
      holders.set(key, (holders.get(key) ?? 0) + selfSize(to));
    }
  }
  console.log(`\nwho holds ${kind} (bytes of the held, by holder and edge)`);
  for (const [key, bytes] of [...holders].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${mb(bytes)} ${each(bytes)}  ${key}`);
};
for (const kind of (process.env.HOLDERS ?? '(number),(hidden) system / PropertyArray,(array) (object elements),(array) ,(string)').split(',')) holderOf(kind);
