import { escapeUTF8 } from 'entities';

/** Escapes text for HTML and XML. */
export const esc = (text: string): string => escapeUTF8(text);
