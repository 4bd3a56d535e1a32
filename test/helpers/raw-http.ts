import { request as httpRequest } from 'node:http';

export interface RawOptions {
  headers?: Record<string, string>;
  method?: string;
  body?: string | Buffer;
  /** The client's own address: distinct 127.0.X.Y addresses are distinct clients. */
  from?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the path sent exactly as given (fetch would percent-encode it), any Host header, from any loopback address. */
export function raw(origin: string, path: string, options: RawOptions = {}): Promise<RawResponse> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers, localAddress: options.from }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject).end(options.body);
  });
}
