import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One mail as the server received it: the envelope, the session's TLS and login, the raw message. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly user: string | undefined;
  readonly secure: boolean;
  readonly raw: string;
}

/** A real SMTP server (`smtp-server`) on 127.0.0.1 that keeps every mail and accepts one login. */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  /** Login attempts the server saw, right or wrong (a password sent is a password seen). */
  logins = 0;
  #waiters: (() => void)[] = [];
  #server!: SMTPServer;
  port = 0;

  static async start(options: SMTPServerOptions, login = { user: 'vigil', password: 'SmtpPassw0rd' }): Promise<SmtpSink> {
    const sink = new SmtpSink();
    sink.#server = new SMTPServer({
      ...options,
      logger: false,
      onAuth(auth, _session, callback) {
        sink.logins += 1;
        if (auth.username === login.user && auth.password === login.password) callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          sink.mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            user: session.user as string | undefined,
            secure: session.secure,
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          for (const wake of sink.#waiters.splice(0)) wake();
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => sink.#server.listen(0, '127.0.0.1', resolve));
    sink.port = (sink.#server.server.address() as AddressInfo).port;
    return sink;
  }

  async received(count: number, timeoutMs = 8000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.mails.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.mails.length} of ${count} mails arrived`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.mails;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
