import pg from 'pg';
import { z } from 'zod';

/** PostgreSQL's size of the archive: every table of the schema with its indexes and TOAST. */
export async function postgresBytes(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`);
    return Number(z.object({ bytes: z.string() }).parse(rows[0]).bytes);
  } finally {
    await client.end();
  }
}
