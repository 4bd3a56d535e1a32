import type { RequisiteKind } from '../archive/store.js';

/**
 * What a requisite's bytes are, by their first bytes — never only by what the server said: an
 * "image" that is an HTML error page is not kept as an image (issue #67). The patterns are the
 * WHATWG MIME Sniffing Standard's (§6.1 images, §6.2 audio and video, §6.3 fonts, §7.1 the HTML
 * signatures of "identify an unknown MIME type"), with ISO BMFF's `ftyp` brands for AVIF/HEIF.
 * SVG and CSS are text without a signature: they are taken as what they say they are unless
 * the bytes are HTML or binary.
 */

type Pattern = { type: string; bytes: Array<number | null>; offset?: number };

/** `null` in a pattern matches any byte (WebP's and WAVE's RIFF length). */
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

const SIGNATURES: Pattern[] = [
  { type: 'image/x-icon', bytes: [0x00, 0x00, 0x01, 0x00] },
  { type: 'image/x-icon', bytes: [0x00, 0x00, 0x02, 0x00] },
  { type: 'image/bmp', bytes: ascii('BM') },
  { type: 'image/gif', bytes: ascii('GIF87a') },
  { type: 'image/gif', bytes: ascii('GIF89a') },
  { type: 'image/webp', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WEBPVP')] },
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'font/ttf', bytes: [0x00, 0x01, 0x00, 0x00] },
  { type: 'font/otf', bytes: ascii('OTTO') },
  { type: 'font/collection', bytes: ascii('ttcf') },
  { type: 'font/woff', bytes: ascii('wOFF') },
  { type: 'font/woff2', bytes: ascii('wOF2') },
  { type: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { type: 'audio/ogg', bytes: ascii('OggS') },
  { type: 'audio/wav', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WAVE')] },
  { type: 'audio/mpeg', bytes: ascii('ID3') },
  { type: 'text/vtt', bytes: ascii('WEBVTT') },
];

/** `ftyp` brands (ISO/IEC 14496-12): AVIF and HEIF images, MP4 video. */
const FTYP_BRANDS: Record<string, string> = {
  avif: 'image/avif', avis: 'image/avif', heic: 'image/heic', heix: 'image/heic', mif1: 'image/heif',
  mp41: 'video/mp4', mp42: 'video/mp4', isom: 'video/mp4', iso2: 'video/mp4', avc1: 'video/mp4', dash: 'video/mp4', M4V: 'video/mp4', M4A: 'audio/mp4',
};

/** §7.1: the tags whose opening makes a resource HTML, after leading whitespace, when a space or `>` follows the name. */
const HTML_OPENINGS = ['<html', '<head', '<script', '<iframe', '<h1', '<div', '<font', '<table', '<a', '<style', '<title', '<b', '<body', '<br', '<p'];

function matches(bytes: Uint8Array, pattern: Pattern): boolean {
  const offset = pattern.offset ?? 0;
  if (bytes.length < offset + pattern.bytes.length) return false;
  return pattern.bytes.every((byte, i) => byte === null || bytes[offset + i] === byte);
}

/** The first bytes as text, BOM and leading whitespace skipped, lower-cased. */
function leadingText(bytes: Uint8Array): string {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return Buffer.from(bytes.subarray(start, start + 512)).toString('latin1').trimStart().toLowerCase();
}

/** A doctype or a comment makes it HTML whatever follows. */
const looksHtml = (text: string) => text.startsWith('<!doctype html') || text.startsWith('<!--')
  || HTML_OPENINGS.some((opening) => text.startsWith(opening) && /[\s>]/.test(text[opening.length] ?? ' '));

/** Whether the first bytes are binary (§7.1: a byte that text does not have). */
const looksBinary = (bytes: Uint8Array) => bytes.subarray(0, 512).some((byte) => byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f));

/** The sniffed type of `bytes`, given the server's Content-Type (`declared`); null when nothing can be said. */
export function sniffedType(bytes: Uint8Array, declared: string | null): string | null {
  const said = declared?.split(';')[0]?.trim().toLowerCase() || null;
  for (const pattern of SIGNATURES) if (matches(bytes, pattern)) return pattern.type;
  if (bytes.length >= 12 && Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'ftyp') {
    const brand = Buffer.from(bytes.subarray(8, 12)).toString('latin1').trim();
    if (FTYP_BRANDS[brand]) return FTYP_BRANDS[brand]!;
  }
  if (looksBinary(bytes)) return said?.startsWith('text/') || said === null ? 'application/octet-stream' : said;
  const text = leadingText(bytes);
  if (looksHtml(text)) return 'text/html';
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/.test(text)) return 'image/svg+xml';
  // Text without a signature: what the server said (a stylesheet, a caption track), or plain text.
  return said ?? 'text/plain';
}

/** Whether bytes of `type` may stand as a requisite of `kind` (an icon is an image; a stylesheet is CSS, never HTML). */
export function fitsKind(kind: RequisiteKind, type: string | null): boolean {
  if (type === null) return false;
  switch (kind) {
    case 'image':
    case 'icon':
      return type.startsWith('image/');
    case 'style':
      return type === 'text/css' || type === 'text/plain';
    case 'font':
      return type.startsWith('font/') || type === 'application/font-woff' || type === 'application/vnd.ms-fontobject';
    case 'media':
      return type.startsWith('video/') || type.startsWith('audio/') || type === 'text/vtt';
  }
}

/** Types whose bytes compress well (text and fonts' tables): stored zstd; images and media are compressed already and stored as they are. */
export const compresses = (type: string | null): boolean => type !== null && (type.startsWith('text/') || type === 'image/svg+xml' || type === 'font/ttf' || type === 'font/otf' || type === 'font/collection' || type === 'image/x-icon' || type === 'image/bmp');
