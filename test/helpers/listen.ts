import type { Server } from 'node:http';

/** Listens on a free port of `address` (a loopback address: distinct ones are distinct hosts); the server's origin. */
export async function listenOn(server: Server, address: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const bound = server.address();
  return `http://${address}:${typeof bound === 'object' && bound ? bound.port : 0}`;
}
