import { deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { storedEvent } from './event-shape.js';
import type { RetiredDetails, RetiredState } from './instance.js';
import type { InstanceEvent } from './types.js';

/*
 * Held events of one instance as one compressed string (deflated JSON, one byte per character),
 * with how it left when it was sealed at deregistration. A node keeps up to
 * `max-deregistered-instances` deregistered histories no one reads until they are dropped: a
 * churned pod's history (registered, UP, deregistered) takes a fraction of its size as objects
 * once sealed with the typical dictionary below, and less again with a sample of the fleet's own
 * (`HistorySealer`; bench/REPORT.md). Sealed histories live in
 * memory only, so their form may change between versions.
 */

/** A sealed history as a node holds it: one flat latin1 string, `<dictionary><count>,<lastSeq>,<leftVersion>;<deflated bytes>`. */
export type PackedHistory = string & { readonly packedHistory: true };

/**
 * A sealed history read from its packed form (`HistorySealer.view`), made when asked for: a node
 * holds only the string, so a held history costs no object and no boxed `seq` besides it.
 */
export interface SealedHistory {
  readonly packed: PackedHistory;
  /** What it was deflated with: the sealer's typical dictionary or its sample. */
  readonly dictionary: SealDictionary;
  readonly count: number;
  readonly lastSeq: number;
  /**
   * The version its instance left with (`retiredDetails` reads the rest of how it left); null for
   * the older part of a history whose instance came back.
   */
  readonly leftVersion: number | null;
  /** Where the deflated bytes begin in `packed`. */
  readonly dataStart: number;
}

/** A sealed history whose instance left and has not come back. */
export type RetiredHistory = SealedHistory & { readonly leftVersion: number };

/**
 * A typical sealed history: deflate finds its keys and common values here instead of spelling them
 * out in each small history. The most frequent come last, nearest the data, and the last lines
 * are the payload's own beginning.
 */
const DICTIONARY = Buffer.from(
  '{"status":"DOWN","details":{}}"OUT_OF_SERVICE""OFFLINE""RESTRICTED""description":"error":"message":'
  + '{"build":{"artifact":"group":"name":"time":"version":"git":{"branch":"commit":{"id":'
  + '{"type":"REGISTRATION_UPDATED","instance":"","version":1,"timestamp":"2026-01-01T00:00:00.000Z","seq":1,"registration":'
  + '{"type":"ENDPOINTS_DETECTED","instance":"","version":2,"timestamp":"2026-01-01T00:00:00.000Z","seq":1,"endpoints":'
  + '[{"id":"health","url":"http://"},{"id":"info","url":"http://"},{"id":"env","url":"http://"},{"id":"metrics","url":"http://"}]}'
  + '{"type":"INFO_CHANGED","instance":"","version":3,"timestamp":"2026-01-01T00:00:00.000Z","seq":1,"info":{"build":{"artifact":"'
  + '{"type":"STATUS_CHANGED","instance":"","version":1,"timestamp":"2026-01-01T00:00:00.000Z","seq":1,"statusInfo":{"status":"UP","details":{}}}'
  + '{"type":"DEREGISTERED","instance":"","version":4,"timestamp":"2026-01-01T00:00:00.000Z","seq":1}]}'
  + '{"retired":{"statusTimestamp":"2026-01-01T00:00:00.000Z","registration":{"name":"","managementUrl":"http://","healthUrl":"http://",'
  + '"serviceUrl":"http://","source":"http-api","metadata":{"startup":"2026-01-01T00:00:00.000Z","tags.'
  + '"events":[{"type":"REGISTERED","instance":"","version":0,"timestamp":"2026-01-01T00:00:00.000Z","seq":1,"registration":{"name":"',
  'utf8',
);

/** Deflate's options for one dictionary: a small window and little state (histories are a few KB at most, one sealed per deregistration). */
export type SealDictionary = Readonly<ZlibOptions>;

const WINDOW_BITS = 12;
const withDictionary = (dictionary: Buffer): SealDictionary => Object.freeze({ level: 6, windowBits: WINDOW_BITS, memLevel: 5, dictionary });
const TYPICAL: SealDictionary = withDictionary(DICTIONARY);
/**
 * The largest history taken as a sample: with DICTIONARY it stays within what deflate looks back
 * over (its window less 262 bytes).
 */
const SAMPLE_MAX_BYTES = (1 << WINDOW_BITS) - 262 - DICTIONARY.length;

interface Payload {
  readonly retired: RetiredDetails | null;
  readonly events: readonly InstanceEvent[];
}

/**
 * Seals histories for one node. The first history it seals that is small enough becomes a
 * sample, put after DICTIONARY for every history sealed after it: a fleet's histories share
 * their application names, hosts, URL shapes, metadata keys and event sequence, and with one of
 * them to refer to a churned pod's history deflates much further (bench/REPORT.md).
 * The sample stays as long as the sealer (the node's registry) and is never served; histories
 * sealed before it keep the typical dictionary they were sealed with.
 */
export class HistorySealer {
  #sample: SealDictionary | undefined;

  /** Seals `events` (oldest first, at least one), with `retired` when the instance has left. */
  seal(events: readonly InstanceEvent[], retired: RetiredState | null): SealedHistory {
    const payload: Payload = { retired: retired && { statusTimestamp: retired.statusTimestamp, registration: retired.registration }, events };
    const json = Buffer.from(JSON.stringify(payload), 'utf8');
    const dictionary = this.#sample ?? TYPICAL;
    const data = deflateRawSync(json, dictionary);
    if (!this.#sample && json.length <= SAMPLE_MAX_BYTES) this.#sample = withDictionary(Buffer.concat([DICTIONARY, json]));
    return this.view(pack(dictionary === TYPICAL ? TYPICAL_MARK : SAMPLE_MARK, events.length, events.at(-1)!.seq, retired && retired.version, data));
  }

  /** A held history, read. */
  view(packed: PackedHistory): SealedHistory {
    const dataStart = dataStartOf(packed);
    const [count, lastSeq, leftVersion] = packed.slice(1, dataStart - 1).split(',') as [string, string, string];
    const dictionary = packed[0] === SAMPLE_MARK ? this.#sample! : TYPICAL;
    return { packed, dictionary, count: Number(count), lastSeq: Number(lastSeq), leftVersion: leftVersion === '' ? null : Number(leftVersion), dataStart };
  }
}

const TYPICAL_MARK = 't';
const SAMPLE_MARK = 's';

function pack(mark: string, count: number, lastSeq: number, leftVersion: number | null, data: Buffer): PackedHistory {
  const header = Buffer.from(`${mark}${count},${lastSeq},${leftVersion ?? ''};`, 'latin1');
  // Through one buffer, so the string is flat: a concatenation would be held as two strings and a pair.
  return Buffer.concat([header, data]).toString('latin1') as PackedHistory;
}

/** Where the deflated bytes begin in a packed history: after its header's `;`. */
function dataStartOf(packed: string): number {
  return packed.indexOf(';') + 1;
}

/** The deflated bytes of a sealed history. */
function deflatedBytes(sealed: SealedHistory): Buffer {
  return Buffer.from(sealed.packed, 'latin1').subarray(sealed.dataStart);
}

/** The same sealed history, its instance back: how it left no longer counts. */
export function cameBack(sealed: SealedHistory): SealedHistory {
  const packed = pack(sealed.packed[0]!, sealed.count, sealed.lastSeq, null, deflatedBytes(sealed));
  return { ...sealed, packed, leftVersion: null, dataStart: dataStartOf(packed) };
}

/** The events of a sealed history, oldest first, each as the logs hand events out. */
export function openHistory(sealed: SealedHistory): InstanceEvent[] {
  return read(sealed).events.map((event) => storedEvent(event, event.seq));
}

/** Whether the instance of a sealed history left and has not come back. */
export function isRetired(sealed: SealedHistory | undefined): sealed is RetiredHistory {
  return sealed !== undefined && sealed.leftVersion !== null;
}

/** How the instance of a retired history left, besides its version. */
export function retiredDetails(sealed: RetiredHistory): RetiredDetails {
  return read(sealed).retired!;
}

function read(sealed: SealedHistory): Payload {
  return JSON.parse(inflateRawSync(deflatedBytes(sealed), sealed.dictionary).toString('utf8')) as Payload;
}
