import { actuatorPath, send } from '../../../api';

export interface AttributeInfo { readonly type: string; readonly rw: boolean; readonly desc?: string }
export interface OperationInfo { readonly args: readonly { name: string; type: string; desc?: string }[]; readonly ret: string; readonly desc?: string }
export interface MBeanInfo {
  readonly desc?: string;
  readonly class?: string;
  readonly attr?: Record<string, AttributeInfo>;
  /** An overloaded operation has one entry per signature. */
  readonly op?: Record<string, OperationInfo | readonly OperationInfo[]>;
}
export type JolokiaList = Record<string, Record<string, MBeanInfo>>;

interface JolokiaReply { readonly status: number; readonly value?: unknown; readonly error?: string; readonly error_type?: string }

/** A Jolokia error (its HTTP answer is 200; the status and message are in the body). */
export class JolokiaError extends Error {}

/**
 * One request to the instance's Jolokia agent through Vigil's proxy, in Jolokia's JSON protocol
 * (POST, so MBean names need no escaping in a URL). Resolves with `value`; rejects with the
 * agent's error.
 */
export async function jolokia<T>(id: string, request: Record<string, unknown>): Promise<T> {
  const res = await send('POST', actuatorPath(id, 'jolokia'), { json: request });
  const reply = (await res.json()) as JolokiaReply | JolokiaReply[];
  const one = Array.isArray(reply) ? reply[0]! : reply;
  if (one.status !== 200) throw new JolokiaError(one.error ?? `Jolokia answered ${one.status}`);
  return one.value as T;
}

/** Every signature of every operation, as Jolokia names them in `exec` (`name(type,type)` when overloaded). */
export function signaturesOf(info: MBeanInfo): { name: string; call: string; op: OperationInfo }[] {
  return Object.entries(info.op ?? {}).flatMap(([name, entry]) => {
    const overloads = Array.isArray(entry) ? (entry as readonly OperationInfo[]) : [entry as OperationInfo];
    return overloads.map((op) => ({ name, call: overloads.length > 1 ? `${name}(${op.args.map((arg) => arg.type).join(',')})` : name, op }));
  });
}

const NUMBERS = /^(int|long|short|byte|double|float|java\.lang\.(Integer|Long|Short|Byte|Double|Float))$/;

/** A value typed into a field, as the JSON Jolokia expects for that Java type. */
export function argumentValue(type: string, text: string): unknown {
  if (NUMBERS.test(type)) return text.trim() === '' ? null : Number(text);
  if (type === 'boolean' || type === 'java.lang.Boolean') return text.trim().toLowerCase() === 'true';
  if (type === 'java.lang.String' || type === 'char' || type === 'java.lang.Character') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A value read from an MBean, as text for a field or a cell. */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
