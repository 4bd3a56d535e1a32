import { createServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A loopback server that misbehaves on purpose, at the socket level where an HTTP library
 * would not let a test misbehave: each path is one fault. Requests are logged with their time.
 */
export interface FaultServer {
  url: string;
  host: string;
  requests: Array<{ path: string; at: number }>;
  close: () => Promise<void>;
}

const page = (title: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><article><h1>${title}</h1>${
  Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i + 1} of ${title}: the council met on Tuesday and agreed to repair the old bridge before winter, after a long debate about the cost and the detour.</p>`).join('')
}</article></body></html>`;

function respond(socket: Socket, status: string, headers: Record<string, string | number>, body: Buffer | string = ''): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = Object.entries({ 'content-length': bytes.length, connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}`);
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${lines.join('\r\n')}\r\n\r\n`), bytes]));
}

/** `feed` writes the feed document served at /feed.xml, given the server's base URL. */
export async function startFaultServer(address: string, feed: (base: string) => string = () => ''): Promise<FaultServer> {
  const requests: FaultServer['requests'] = [];
  const sockets = new Set<Socket>();
  let base = '';
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const path = head.split(' ')[1] ?? '/';
      requests.push({ path, at: Date.now() });
      handle(socket, path);
    });
  });
  const asked = new Map<string, number>();
  const handle = (socket: Socket, path: string) => {
    const times = (asked.get(path) ?? 0) + 1;
    asked.set(path, times);
    // `/good/<name>`: a good page of its own; `/vanish/<name>` and `/moves/<name>`: good at the
    // first request, then 404, or a permanent redirect to the home page.
    if (path.startsWith('/good/')) return respond(socket, '200 OK', { 'content-type': 'text/html; charset=utf-8' }, page(`Good page ${path.slice(6)}`));
    if (path.startsWith('/vanish/')) return times === 1 ? respond(socket, '200 OK', { 'content-type': 'text/html; charset=utf-8' }, page(`Vanishing page ${path.slice(8)}`)) : respond(socket, '404 Not Found', { 'content-type': 'text/plain' }, 'gone');
    if (path.startsWith('/moves/')) return times === 1 ? respond(socket, '200 OK', { 'content-type': 'text/html; charset=utf-8' }, page(`Moving page ${path.slice(7)}`)) : respond(socket, '301 Moved Permanently', { location: '/' });
    switch (path) {
      case '/':
        return respond(socket, '200 OK', { 'content-type': 'text/html; charset=utf-8' }, '<!doctype html><html><head><title>Home</title></head><body><h1>Welcome</h1><p>Latest stories.</p></body></html>');
      case '/feed.xml':
        return respond(socket, '200 OK', { 'content-type': 'application/rss+xml' }, feed(base));
      case '/good':
        return respond(socket, '200 OK', { 'content-type': 'text/html; charset=utf-8' }, page('A good page'));
      case '/reset-mid-body':
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 20000\r\n\r\n<html><body><p>the start of a page');
        return void setTimeout(() => socket.resetAndDestroy(), 50);
      case '/drip': {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 100000\r\n\r\n');
        const timer = setInterval(() => socket.write('x'), 200);
        return void socket.on('close', () => clearInterval(timer));
      }
      case '/never':
        return; // reads the request, never answers
      case '/500':
        return respond(socket, '500 Internal Server Error', { 'content-type': 'text/plain' }, 'boom');
      case '/502':
        return respond(socket, '502 Bad Gateway', { 'content-type': 'text/plain' }, 'bad gateway');
      case '/503':
        return respond(socket, '503 Service Unavailable', { 'content-type': 'text/plain' }, 'busy');
      case '/429':
        return respond(socket, '429 Too Many Requests', { 'retry-after': '120', 'content-type': 'text/plain' }, 'slow down');
      case '/loop':
        return respond(socket, '302 Found', { location: '/loop' });
      case '/to-loopback':
        // An allowed host sending the archiver to an address it must not reach.
        return respond(socket, '302 Found', { location: `http://127.0.0.1:${base.split(':').pop()}/good` });
      case '/bad-gzip':
        return respond(socket, '200 OK', { 'content-type': 'text/html', 'content-encoding': 'gzip' }, Buffer.from('this is not gzip at all, just bytes'));
      case '/truncated-gzip':
        return respond(socket, '200 OK', { 'content-type': 'text/html', 'content-encoding': 'gzip' }, gzipSync(page('Cut short')).subarray(0, 60));
      case '/wrong-length':
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 50000\r\nconnection: close\r\n\r\n<html><body><p>far fewer bytes than promised</p>');
        return void socket.end();
      case '/huge-header':
        return respond(socket, '200 OK', { 'content-type': 'text/html', 'x-padding': 'a'.repeat(1024 * 1024) }, page('Never seen'));
      case '/lying-charset':
        // Declares UTF-8, sends windows-1252 (é as 0xE9): the page is kept and read as best it can.
        return respond(socket, '200 OK', { 'content-type': 'text/html; charset=utf-8' }, Buffer.from(page('Caf\u00e9 soci\u00e9t\u00e9 r\u00e9sum\u00e9').replace(/<meta charset="utf-8">/, ''), 'latin1'));
      default:
        return respond(socket, '404 Not Found', { 'content-type': 'text/plain' }, 'not here');
    }
  };
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as { port: number };
  base = `http://${address}:${port}`;
  return {
    url: base,
    host: `${address}:${port}`,
    requests,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
