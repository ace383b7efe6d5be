import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A test server on 127.0.0.1 and a close that also ends its kept-alive and in-flight connections. */
export interface LocalServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Listens on a free port of 127.0.0.1 (or on `port`, to start a stopped server again where it
 * was). `server.close()` alone waits for every open connection, and the daemon under test keeps
 * its connections to fake instances alive: each is tracked here and destroyed on close.
 */
export async function listenLocal(server: Server, port = 0): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
