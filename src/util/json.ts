import { z } from 'zod';

/** Parses JSON text with `schema` (no unchecked cast); text that fails says what `where` it came from and why. */
export function parseJson<T>(schema: z.ZodType<T>, text: string, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where} holds invalid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${where} does not hold what it should: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
