import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';

/** One record of the zone, in dns-packet's terms (the owner name is the map key). */
export type ZoneRecord =
  | { readonly type: 'SRV'; readonly data: { readonly target: string; readonly port: number; readonly priority?: number; readonly weight?: number } }
  | { readonly type: 'TXT'; readonly data: readonly string[] }
  | { readonly type: 'A' | 'AAAA'; readonly data: string };

/** How the server answers every query: from the zone, with an error code, or not at all. */
export type Mode = 'zone' | 'SERVFAIL' | 'REFUSED' | 'silent';

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

/**
 * A real DNS server on loopback UDP, answering from a zone the test edits: names it does not
 * hold get NXDOMAIN, names without records of the asked type an empty NOERROR (NODATA). The
 * daemon reaches it through Node's own resolver (c-ares) and the real wire format.
 */
export class DnsResponder {
  readonly zone = new Map<string, ZoneRecord[]>();
  readonly queries: string[] = [];
  mode: Mode = 'zone';

  private constructor(private readonly socket: Socket) {
    socket.on('message', (message, remote) => this.#answer(message, remote.port, remote.address));
  }

  static async start(): Promise<DnsResponder> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new DnsResponder(socket);
  }

  /** `127.0.0.1:<port>`, as `discovery-dns.servers` takes it. */
  get server(): string {
    return `127.0.0.1:${(this.socket.address() as AddressInfo).port}`;
  }

  set(name: string, records: readonly ZoneRecord[]): void {
    this.zone.set(name.toLowerCase(), [...records]);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  #answer(message: Buffer, port: number, address: string): void {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    this.queries.push(`${question.type} ${question.name}`);
    if (this.mode === 'silent') return;
    let rcode: number = RCODE.NOERROR;
    let answers: dnsPacket.Answer[] = [];
    if (this.mode !== 'zone') rcode = RCODE[this.mode];
    else {
      const records = this.zone.get(question.name.toLowerCase());
      if (!records) rcode = RCODE.NXDOMAIN;
      else answers = records.filter((record) => record.type === question.type).map((record) => ({ ...record, name: question.name, ttl: 30, class: 'IN' }) as dnsPacket.Answer);
    }
    const response = dnsPacket.encode({
      id: query.id ?? 0,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
      questions: [question],
      answers,
    });
    this.socket.send(response, port, address);
  }
}
