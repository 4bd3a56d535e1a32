import sharp, { type Sharp } from 'sharp';

/**
 * A photograph-like test picture: smooth gradients under a few discs and bars placed by
 * `seed` (a small LCG), so that two seeds are two scenes and one seed is one scene however
 * it is encoded.
 */
export async function scene(seed: number, width = 320, height = 240): Promise<Sharp> {
  let state = seed * 2654435761 % 4294967296;
  const random = () => (state = (state * 1664525 + 1013904223) % 4294967296) / 4294967296;
  const shapes = Array.from({ length: 6 }, () => ({
    x: random() * width, y: random() * height, r: 15 + random() * 60, colour: [random() * 255, random() * 255, random() * 255], disc: random() > 0.4,
  }));
  const tint = [random() * 255, random() * 255, random() * 255];
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let colour = [tint[0]! * x / width, tint[1]! * y / height, tint[2]! * (1 - x / width)];
      for (const shape of shapes) {
        const inside = shape.disc ? (x - shape.x) ** 2 + (y - shape.y) ** 2 < shape.r ** 2 : Math.abs(x - shape.x) < shape.r && Math.abs(y - shape.y) < shape.r / 3;
        if (inside) colour = shape.colour;
      }
      pixels.set(colour.map((value) => Math.round(value)), (y * width + x) * 3);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

export const jpeg = async (seed: number, quality = 85): Promise<Buffer> => (await scene(seed)).jpeg({ quality }).toBuffer();
export const webp = async (seed: number, quality = 60): Promise<Buffer> => (await scene(seed)).webp({ quality }).toBuffer();
