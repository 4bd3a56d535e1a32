/**
 * Errors of the HTTP API as problem documents (RFC 9457): a status, a short title, and a detail
 * that says what to do. Thrown by a route; the server's error handler writes it.
 */
export class Problem extends Error {
  /** `headers`: what the answer carries besides (a 429's Retry-After). */
  constructor(readonly status: number, readonly title: string, readonly detail: string, readonly headers: Readonly<Record<string, string>> = {}) {
    super(detail);
    this.name = 'Problem';
  }
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
}

export const problemDocument = (status: number, title: string, detail: string, instance?: string): ProblemDocument =>
  ({ type: 'about:blank', title, status, detail, ...(instance ? { instance } : {}) });
