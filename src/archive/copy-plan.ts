/**
 * What `forest copy` moves between archives, in the order their references allow (a row comes
 * after every row it points at): every table of the archive's record, the same columns on both
 * backends. Left out: who is running (leases, daemons, claims, hosts — a copy is nobody's running
 * archive), schema_migrations (each backend has its own), and the search index (derived: SQLite
 * rebuilds it, PostgreSQL generates it).
 */
export interface CopyPart {
  table: string;
  /** The columns rows are read in order of, a page at a time (keyset: the table's primary key). */
  key: string[];
  /** Rows of this part only (blobs: references before the bodies compressed against them). */
  where?: string;
  /** Whether the key is an identity column whose sequence must follow the copied rows (PostgreSQL). */
  identity?: boolean;
}

export const COPY_PLAN: readonly CopyPart[] = [
  { table: 'feeds', key: ['id'], identity: true },
  { table: 'polls', key: ['id'], identity: true },
  { table: 'items', key: ['id'], identity: true },
  // A body compressed against a reference names it; references are stored alone (codec.ts).
  { table: 'blobs', key: ['sha256'], where: 'reference IS NULL' },
  { table: 'blobs', key: ['sha256'], where: 'reference IS NOT NULL' },
  { table: 'capture_references', key: ['host'] },
  { table: 'snapshots', key: ['id'], identity: true },
  { table: 'requisites', key: ['id'], identity: true },
  { table: 'templates', key: ['id'], identity: true },
  { table: 'wrappers', key: ['id'], identity: true },
  { table: 'contents', key: ['hash'] },
  { table: 'extractions', key: ['snapshot_id'] },
  { table: 'articles', key: ['id'], identity: true },
  { table: 'versions', key: ['id'], identity: true },
  { table: 'checks', key: ['id'], identity: true },
  { table: 'extraction_queue', key: ['snapshot_id'] },
  { table: 'requisite_queue', key: ['snapshot_id'] },
  { table: 'poll_days', key: ['feed_id', 'day'] },
  { table: 'check_days', key: ['article_id', 'day'] },
  { table: 'notify_cursors', key: ['webhook'] },
  { table: 'notifications', key: ['id'], identity: true },
  { table: 'websub_subscriptions', key: ['feed_id'] },
];

/** A page of a part's rows after `after` (the last key read, null for the first page): the same SQL on both backends. */
export function copyPageQuery(part: CopyPart, columns: readonly string[], after: readonly unknown[] | null): string {
  const keys = part.key.join(', ');
  const conditions = [part.where, after === null ? null : `(${keys}) > (${part.key.map(() => '?').join(', ')})`].filter(Boolean);
  return `SELECT ${columns.join(', ')} FROM ${part.table}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${keys} LIMIT ?`;
}
