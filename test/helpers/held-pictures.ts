import { createServer, type ServerResponse } from 'node:http';
import { listenOn } from './listen.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/**
 * A site whose feed lists `pages` stories, each with a photograph on another host (127.0.0.2)
 * that answers nothing until released: a slow CDN, a requisite lane that cannot keep up, a
 * daemon stopped while its pages wait for their pictures.
 */
export function heldPicturesWeb(pages: number) {
  const held: ServerResponse[] = [];
  let released = false;
  const pictures = createServer((_request, response) => {
    if (released) response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else held.push(response);
  });
  let pictureOrigin = '';
  const site = createServer((request, response) => {
    const origin = `http://${request.headers.host}`;
    if (request.url === '/feed') {
      const items = Array.from({ length: pages }, (_, n) => `<item><guid>story-${n}</guid><title>Story ${n}</title><link>${origin}/${n}.html</link></item>`).join('');
      response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Site</title><link>${origin}/</link>${items}</channel></rss>`);
      return;
    }
    const n = (request.url ?? '').replace(/\D/g, '');
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Story ${n}</title></head><body><article><h1>Story ${n}</h1>
<p>The harbour committee met on ${n} November and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel.</p>
<img src="${pictureOrigin}/photo-${n}.png" alt=""></article></body></html>`);
  });
  return {
    /** The picture requests waiting for an answer. */
    held,
    /** Starts both hosts; resolves to the feed's URL. */
    async start(): Promise<string> {
      const origin = await listenOn(site, '127.0.0.1');
      pictureOrigin = await listenOn(pictures, '127.0.0.2');
      return `${origin}/feed`;
    },
    /** From now on every picture is answered; those held are answered (`answer`) or dropped. */
    release(answer: boolean): void {
      released = true;
      for (const response of held.splice(0)) {
        if (answer) response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        else response.destroy();
      }
    },
    close(): void {
      site.close();
      pictures.closeAllConnections();
      pictures.close();
    },
  };
}
