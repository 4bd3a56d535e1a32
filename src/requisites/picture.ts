import sharp from 'sharp';

/**
 * Pictures compared as pictures (issue #67, item 4): a CDN that serves the same photograph at
 * another quality or in another format sends new bytes at the same URL, and that is no edit;
 * a new photograph at the same URL is one. Bytes cannot tell the two apart, so each picture is
 * decoded (sharp: libvips, off the event loop) and reduced to a print of what survives
 * re-encoding — its shape, its structure and its colours at a coarse scale:
 *
 * - the aspect ratio (a re-encode keeps it; a resize for another screen keeps it too);
 * - a difference hash (dHash, N. Krawetz, "Kind of like that", 2013; benchmarked among
 *   perceptual hashes in C. Zauner, "Implementation and Benchmarking of Perceptual Image Hash
 *   Functions", 2010): the picture in grey at 9×8, one bit per pair of neighbours, set where the
 *   left one is brighter — it survives compression, scaling and gamma, and a new photograph
 *   changes about half of its 64 bits;
 * - the mean colour of each cell of a 3×3 grid: dHash sees only relative brightness, so two
 *   plain or evenly lit pictures of different colours have the same hash; their colours differ.
 *
 * Two prints are the same picture when all three agree within PICTURE_OPTIONS.
 */

export const PICTURE_OPTIONS = {
  /** Aspect ratios further apart than this share (of the larger) are different pictures. */
  aspectTolerance: 0.02,
  /**
   * At most this many of dHash's 64 bits may differ. Krawetz reads ≤ 10 as "probably the same
   * picture". Measured on picture.test.ts's scenes (docs/measurements.md): re-encoded as JPEG at
   * quality 90 or 40, as WebP at 50, or halved, 1–10 bits moved (WebP most); unrelated scenes
   * were 17–38 bits apart. 12 sits between.
   */
  maxHashDistance: 12,
  /** At most this far apart (0–255, any channel of any grid cell); the same re-encodings moved them by 3–18. */
  maxColourDistance: 32,
  /** Larger pictures are not decoded (a decompression bomb): they are compared by their bytes only. */
  maxPixels: 40_000_000,
};

export interface PicturePrint {
  width: number;
  height: number;
  /** dHash: 64 bits as 16 hex digits. */
  hash: string;
  /** Mean R, G, B of each cell of a 3×3 grid, row by row (27 values). */
  colours: number[];
}

/** The print of an image's bytes, or null when they are no picture sharp can decode (or one past maxPixels). */
export async function printPicture(bytes: Uint8Array, options = PICTURE_OPTIONS): Promise<PicturePrint | null> {
  try {
    const image = sharp(bytes, { limitInputPixels: options.maxPixels, animated: false, failOn: 'error' });
    const { width, height } = await image.metadata();
    if (!width || !height) return null;
    const grey = await image.clone().flatten({ background: '#ffffff' }).greyscale().resize(9, 8, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
    let bits = 0n;
    for (let y = 0; y < 8; y++) {
      for (let x = 0; x < 8; x++) bits = (bits << 1n) | (grey[y * 9 + x]! > grey[y * 9 + x + 1]! ? 1n : 0n);
    }
    const grid = await image.clone().flatten({ background: '#ffffff' }).removeAlpha().toColourspace('srgb').resize(3, 3, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
    return { width, height, hash: bits.toString(16).padStart(16, '0'), colours: [...grid.subarray(0, 27)] };
  } catch {
    return null;
  }
}

/** Bits that differ between two dHashes. */
export function hashDistance(a: string, b: string): number {
  let diff = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (diff > 0n) {
    count += Number(diff & 1n);
    diff >>= 1n;
  }
  return count;
}

/** Whether two prints are one picture, however encoded. */
export function samePicture(a: PicturePrint, b: PicturePrint, options = PICTURE_OPTIONS): boolean {
  const aspectA = a.width / a.height;
  const aspectB = b.width / b.height;
  if (Math.abs(aspectA - aspectB) / Math.max(aspectA, aspectB) > options.aspectTolerance) return false;
  if (hashDistance(a.hash, b.hash) > options.maxHashDistance) return false;
  return a.colours.every((value, i) => Math.abs(value - (b.colours[i] ?? -255)) <= options.maxColourDistance);
}
