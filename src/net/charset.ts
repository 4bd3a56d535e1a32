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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes.subarray(0, 64 * 1024), { stream: true });
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
    const text = buffer.toString('utf8');
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
