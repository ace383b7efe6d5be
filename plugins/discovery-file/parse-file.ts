import { LineCounter, YAMLParseError, isSeq, parse, parseDocument } from 'yaml';
import { convertService, type Discovered, type DiscoveredService, type DiscoveryConfig } from '../../core/kits/discovery/index.js';
import { parseRegistration } from '../../core/domain/index.js';
import { messageOf } from '../../core/plugin-api.js';

/** A file that cannot be read as a list of instances; each problem names its line and column. */
export class FileProblems extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
  }
}

const SERVICE_KEYS = new Set(['name', 'url', 'metadata']);
const REGISTRATION_KEYS = new Set(['name', 'healthUrl', 'health_url', 'managementUrl', 'management_url', 'serviceUrl', 'service_url', 'metadata']);
const MAX_PROBLEMS = 20;

/**
 * Reads the file's text: a YAML or JSON list whose entries are either service entries
 * (`name`, `url`, `metadata`: converted by SBA's rules) or SBA registrations (`name`,
 * `healthUrl`, ... or their snake_case aliases). The whole file is refused when any entry is
 * wrong (a typo must not remove an instance); every problem carries `file:line:column`.
 */
export function parseInstancesFile(text: string, file: string, config: DiscoveryConfig): Discovered[] {
  if (text.trim() === '') throw new FileProblems([`${file}: the file is empty (write [] to list no instances)`]);
  const data = readData(text, file);
  // Positions are only needed to report problems: the document is parsed again, with them, then.
  let positions: ((index?: number) => string) | undefined;
  const at = (index?: number) => (positions ??= locator(text, file))(index);
  if (!Array.isArray(data)) throw new FileProblems([`${at()}: expected a list of instances, got ${describe(data)}`]);
  const entries: Discovered[] = [];
  const problems: string[] = [];
  data.forEach((item: unknown, index) => {
    if (problems.length >= MAX_PROBLEMS) return;
    const problem = (message: string) => problems.push(`${at(index)}: entry ${index + 1}: ${message}`);
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return problem(`expected a mapping, got ${describe(item)}`);
    const entry = item as Record<string, unknown>;
    const registrationForm = 'healthUrl' in entry || 'health_url' in entry;
    const known = registrationForm ? REGISTRATION_KEYS : SERVICE_KEYS;
    let unknown: string[] | undefined;
    for (const key in entry) if (!known.has(key)) (unknown ??= []).push(key);
    if (unknown) {
      return problem(`unknown key(s) ${unknown.join(', ')} (a service entry has name, url, metadata; a registration has name, healthUrl, managementUrl, serviceUrl, metadata)`);
    }
    if (registrationForm) {
      const parsed = parseRegistration(entry, 'discovery');
      if (!parsed.ok) return problem(parsed.problems.join('; '));
      entries.push({ registration: parsed.registration });
      return;
    }
    const service = serviceEntry(entry);
    if (typeof service === 'string') return problem(service);
    try {
      convertService(service, config);
    } catch (error) {
      return problem(messageOf(error));
    }
    entries.push(service);
  });
  if (problems.length > 0) throw new FileProblems(problems);
  return entries;
}

function readData(text: string, file: string): unknown {
  // JSON (which is YAML too) parses a hundred times faster through JSON.parse: a generated
  // 20,000-entry file is read in milliseconds. Anything else, or broken JSON, goes to the YAML
  // parser, whose errors carry line and column.
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // fall through to YAML
    }
  }
  try {
    return parse(text, { prettyErrors: true });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const position = error.linePos?.[0];
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new FileProblems([`${file}:${position ? `${position.line}:${position.col}` : '1:1'}: ${message}`]);
    }
    throw error;
  }
}

function serviceEntry(entry: Record<string, unknown>): DiscoveredService | string {
  const { name, url, metadata } = entry;
  if (typeof name !== 'string' || name.trim() === '') return "'name' must be a non-empty string";
  if (typeof url !== 'string' || url.trim() === '') return "'url' must be a non-empty string (the service URL, e.g. http://10.0.0.5:8080)";
  if (metadata === undefined || metadata === null) return { name, uri: url, metadata: {} };
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return "'metadata' must be a mapping";
  const given = metadata as Record<string, unknown>;
  let values: Record<string, string> | undefined;
  for (const key in given) {
    const value = given[key];
    if (typeof value === 'string') continue;
    if (value !== null && typeof value !== 'number' && typeof value !== 'boolean') return `'metadata.${key}' must be a string, number or boolean`;
    // Only a map that is not all strings already is copied (most are, and there may be 20,000).
    values ??= { ...(given as Record<string, string>) };
    if (value === null) delete values[key];
    else values[key] = String(value);
  }
  return { name, uri: url, metadata: values ?? (given as Record<string, string>) };
}

/** Parses the text once more, with positions; gives `file:line:column` of list entry `index` (or of the document). */
function locator(text: string, file: string): (index?: number) => string {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  return (index) => {
    const node = index !== undefined && isSeq(document.contents) ? document.contents.items[index] : document.contents;
    const offset = node && typeof node === 'object' && 'range' in node && Array.isArray(node.range) ? node.range[0] as number : 0;
    const { line, col } = lines.linePos(offset);
    return `${file}:${line}:${col}`;
  };
}

function describe(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}
