import { useEffect, useMemo, useState } from 'preact/hooks';
import { messageOf } from '../../../api';
import { JsonTree } from '../../../components/json-tree';
import type { InstanceViewProps } from '../view-props';
import { argumentValue, jolokia, shownValue, signaturesOf, type JolokiaList, type MBeanInfo, type OperationInfo } from './jolokia';
import { SearchInput, wordsOf } from './shared';

interface Selected { readonly domain: string; readonly props: string; readonly info: MBeanInfo }
const nameOf = (selected: Selected) => `${selected.domain}:${selected.props}`;

/**
 * JMX through Jolokia: browse the MBeans by domain (searchable), read an MBean's attributes, write
 * the writable ones, and invoke its operations with arguments, each result shown where it was asked.
 */
export default function JmxView({ instance }: InstanceViewProps) {
  const [list, setList] = useState<JolokiaList | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<Selected | null>(null);
  useEffect(() => {
    jolokia<JolokiaList>(instance.id, { type: 'list', config: { ignoreErrors: true } }).then(setList, (failure: unknown) => setError(`jolokia: ${messageOf(failure)}`));
  }, [instance.id]);
  const domains = useMemo(() => {
    const words = wordsOf(query);
    return Object.entries(list ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([domain, beans]) => ({
      domain,
      beans: Object.entries(beans).filter(([props]) => words.every((word) => `${domain}:${props}`.toLowerCase().includes(word))).sort(([a], [b]) => a.localeCompare(b)),
    })).filter((entry) => entry.beans.length > 0);
  }, [list, query]);
  return (
    <div class="split jmx">
      <aside class="picker">
        <SearchInput value={query} onInput={setQuery} label="Search MBeans" placeholder="Domain or MBean" />
        {error && <p class="error">{error}</p>}
        {!list && !error && <p class="muted">Listing MBeans…</p>}
        <div class="pick-list" role="tree" aria-label="MBeans">
          {domains.map(({ domain, beans }) => (
            <details key={domain} open={query !== '' || domains.length === 1} class="jmx-domain">
              <summary><b>{domain}</b> <span class="muted">{beans.length}</span></summary>
              {beans.map(([props, info]) => (
                <button type="button" key={props} role="treeitem" aria-pressed={selected?.domain === domain && selected.props === props}
                  onClick={() => setSelected({ domain, props, info })} title={`${domain}:${props}`}>{props}</button>
              ))}
            </details>
          ))}
        </div>
      </aside>
      <div class="detail">
        {selected ? <MBean key={nameOf(selected)} id={instance.id} selected={selected} /> : <p class="muted">Pick an MBean to read its attributes and invoke its operations.</p>}
      </div>
    </div>
  );
}

function MBean({ id, selected }: { id: string; selected: Selected }) {
  const mbean = nameOf(selected);
  const [values, setValues] = useState<Record<string, unknown> | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const attributes = Object.entries(selected.info.attr ?? {}).sort(([a], [b]) => a.localeCompare(b));
  useEffect(() => {
    if (attributes.length === 0) return;
    jolokia<Record<string, unknown>>(id, { type: 'read', mbean, config: { ignoreErrors: true } }).then(
      (value) => { setValues(value); setError(null); },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, [mbean, round]);
  const operations = signaturesOf(selected.info);
  return (
    <article class="card mbean" aria-label={mbean}>
      <h2 class="mono">{mbean}</h2>
      {selected.info.desc && <p class="muted">{selected.info.desc}</p>}
      {selected.info.class && <p class="mono small muted">{selected.info.class}</p>}
      <h3>Attributes <button type="button" class="link" onClick={() => setRound((n) => n + 1)}>Refresh</button></h3>
      {error && <p class="error">{error}</p>}
      {attributes.length === 0 ? <p class="muted">No attributes.</p> : (
        <table class="grid-table" aria-label="Attributes">
          <thead><tr><th>Attribute</th><th>Value</th><th>Type</th></tr></thead>
          <tbody>
            {attributes.map(([name, info]) => (
              <tr key={name} data-attribute={name}>
                <th class="mono" title={info.desc}>{name}</th>
                <td>{info.rw ? <AttributeEditor id={id} mbean={mbean} name={name} type={info.type} value={values?.[name]} onWritten={() => setRound((n) => n + 1)} />
                  : <AttributeValue value={values?.[name]} loading={!values} />}</td>
                <td class="mono muted small">{info.type}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Operations</h3>
      {operations.length === 0 ? <p class="muted">No operations.</p> : operations.map((operation) => (
        <Operation key={operation.call} id={id} mbean={mbean} name={operation.name} call={operation.call} op={operation.op} />
      ))}
    </article>
  );
}

function AttributeValue({ value, loading }: { value: unknown; loading: boolean }) {
  if (loading) return <span class="muted">…</span>;
  if (value !== null && typeof value === 'object') return <JsonTree value={value} depth={1} />;
  return <span class="mono">{shownValue(value)}</span>;
}

function AttributeEditor({ id, mbean, name, type, value, onWritten }: { id: string; mbean: string; name: string; type: string; value: unknown; onWritten: () => void }) {
  const [text, setText] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const write = async () => {
    try {
      await jolokia(id, { type: 'write', mbean, attribute: name, value: argumentValue(type, text ?? shownValue(value)) });
      setOutcome('saved');
      setText(null);
      onWritten();
    } catch (failure) {
      setOutcome(`not saved: ${messageOf(failure)}`);
    }
  };
  return (
    <form class="inline-form" onSubmit={(event) => { event.preventDefault(); void write(); }}>
      <input class="mono" aria-label={`Value of ${name}`} value={text ?? shownValue(value)} onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)} />
      <button type="submit" disabled={text === null}>Save</button>
      {outcome && <span class={outcome === 'saved' ? 'ok' : 'error'} role="status">{outcome}</span>}
    </form>
  );
}

function Operation({ id, mbean, name, call, op }: { id: string; mbean: string; name: string; call: string; op: OperationInfo }) {
  const [args, setArgs] = useState<string[]>(() => op.args.map(() => ''));
  const [result, setResult] = useState<{ value: unknown } | { error: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const invoke = async () => {
    setBusy(true);
    try {
      setResult({ value: await jolokia(id, { type: 'exec', mbean, operation: call, arguments: op.args.map((arg, index) => argumentValue(arg.type, args[index] ?? '')) }) });
    } catch (failure) {
      setResult({ error: messageOf(failure) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="operation" data-operation={call} onSubmit={(event) => { event.preventDefault(); void invoke(); }}>
      <div class="operation-head">
        <b class="mono">{name}</b><span class="mono muted">({op.args.map((arg) => `${arg.type} ${arg.name}`).join(', ')}) → {op.ret}</span>
        {op.desc && op.desc !== name && <span class="muted small">{op.desc}</span>}
      </div>
      <div class="operation-args">
        {op.args.map((arg, index) => (
          <label key={`${arg.name}-${index}`} class="arg">{arg.name}
            <input class="mono" aria-label={`${name} argument ${arg.name}`} placeholder={arg.type} value={args[index]}
              onInput={(event) => { const text = (event.currentTarget as HTMLInputElement).value; setArgs((current) => current.map((old, at) => (at === index ? text : old))); }} />
          </label>
        ))}
        <button type="submit" disabled={busy}>Invoke</button>
      </div>
      {result && ('error' in result
        ? <p class="error" role="status">{result.error}</p>
        : <div class="operation-result" role="status"><span class="muted">Result: </span>{result.value !== null && typeof result.value === 'object' ? <JsonTree value={result.value} /> : <span class="mono">{result.value === null || result.value === undefined ? '(none)' : shownValue(result.value)}</span>}</div>)}
    </form>
  );
}
