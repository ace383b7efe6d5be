import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../support/http.js';

/** Debian's Alertmanager on a loopback port, gossip off, a receiver that drops everything. */
export async function startAlertmanagerProcess(alertmanagerBinary: string): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-alertmanager-'));
  writeFileSync(join(dir, 'am.yml'), "route:\n  receiver: 'null'\nreceivers:\n  - name: 'null'\n");
  const port = await freePort();
  const child: ChildProcess = spawn(alertmanagerBinary, [
    `--config.file=${join(dir, 'am.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`alertmanager exited: ${output}`);
    return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200;
  }, 'alertmanager to be ready', 15_000);
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

