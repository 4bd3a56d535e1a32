import { isAscii, isUtf8 } from 'node:buffer';
import { getEncoding } from 'encoding-sniffer';
import iconv from 'iconv-lite';

export interface DecodedText {
  text: string;
  /** The WHATWG name of the encoding used. */
  encoding: string;
  /** Set when the declared encoding was unknown and UTF-8 was used instead. */
  warning?: string;
}

/** The `charset` parameter of a Content-Type header. */
export function charsetOf(contentType: string | null | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1];
}

function isValidUtf8(bytes: Uint8Array): boolean {
  // Node's validator (simdutf) on the whole body first, a few microseconds: a body valid
  // throughout is valid in its first 64 KiB. Only a body that is not (windows-1252, or UTF-8 cut
  // or broken after its start) is checked the slow way, on its start, where a character cut at
  // the 64 KiB boundary is no error.
  if (isUtf8(bytes)) return true;
  try {
    // A decoder of its own: a streaming decode keeps a character cut at the boundary for the next
    // call, and a shared decoder made the next body begin with it (an UTF-8 page read as
    // windows-1252 after a page cut mid-character).
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 64 * 1024), { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Decodes a fetched body: byte-order mark first, then the HTTP charset, then the XML prolog or
 * HTML `<meta>` (the WHATWG sniffing algorithm, by encoding-sniffer). With no declaration at all,
 * bytes that are valid UTF-8 are read as UTF-8 and anything else as windows-1252, the usual
 * encoding of old undeclared pages. Decoding uses iconv-lite, and the platform's TextDecoder for
 * the few encodings iconv-lite lacks (ISO-2022-JP); not TextDecoder first, because Node 20's
 * windows-1252 decoder reads bytes 0x80–0x9F as Latin-1 control characters.
 */
export function decodeBody(bytes: Uint8Array, contentType?: string | null): DecodedText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declared = charsetOf(contentType);
  const encoding = getEncoding(buffer, {
    transportLayerEncodingLabel: declared,
    defaultEncoding: isValidUtf8(bytes) ? 'UTF-8' : 'windows-1252',
    maxBytes: 4096,
  });
  if (/^utf-?8$/i.test(encoding)) {
    // Node's own UTF-8 decoder: the same text as iconv-lite's (U+FFFD for each invalid sequence,
    // the BOM stripped), without its StringDecoder, which cost a page a millisecond.
    // Pure ASCII (most pages of English sites) reads the same as Latin-1, which V8 copies
    // byte for byte: 8 times faster than decoding it as UTF-8 (bench:scale's worker profile had
    // decoding at 4% of a worker's time).
    const text = isAscii(buffer) ? buffer.toString('latin1') : buffer.toString('utf8');
    return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, encoding: 'utf-8' };
  }
  if (iconv.encodingExists(encoding)) {
    return { text: iconv.decode(buffer, encoding), encoding: encoding.toLowerCase() }; // strips a BOM
  }
  try {
    const decoder = new TextDecoder(encoding);
    return { text: decoder.decode(bytes), encoding: decoder.encoding };
  } catch {
    return {
      text: new TextDecoder('utf-8').decode(bytes),
      encoding: 'utf-8',
      warning: `unknown character encoding ${JSON.stringify(encoding)}; read as UTF-8`,
    };
  }
}
