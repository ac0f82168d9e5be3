import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on 127.0.0.1:`port` (0 or none: a free port) and resolves the port taken. A port already in use rejects
 * (EADDRINUSE) rather than emitting an unhandled 'error', so the local runtime can say which fake could not start.
 */
export function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
