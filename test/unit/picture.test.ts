import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { PICTURE_OPTIONS, hashDistance, printPicture, samePicture, type PicturePrint } from '../../src/requisites/picture.js';
import { jpeg, scene, webp } from '../helpers/picture.js';
import { png } from '../helpers/png.js';

const print = async (bytes: Buffer): Promise<PicturePrint> => {
  const found = await printPicture(bytes);
  assert.ok(found, 'the picture decodes');
  return found;
};

test('one picture re-encoded — another quality, another format, another size — is the same picture', async () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const original = await print(await (await scene(seed)).png().toBuffer());
    const encodings = [await jpeg(seed, 90), await jpeg(seed, 40), await webp(seed, 50), await (await scene(seed)).resize(160, 120).jpeg({ quality: 70 }).toBuffer()];
    for (const bytes of encodings) {
      const other = await print(bytes);
      assert.ok(samePicture(original, other), `seed ${seed}: ${hashDistance(original.hash, other.hash)} bits apart, colours ${JSON.stringify(original.colours)} vs ${JSON.stringify(other.colours)}`);
      assert.ok(hashDistance(original.hash, other.hash) <= 10);
    }
  }
});

test('two different pictures are not the same, however alike their encoding', async () => {
  const prints = await Promise.all([1, 2, 3, 4, 5, 6].map(async (seed) => print(await jpeg(seed))));
  for (let i = 0; i < prints.length; i++) {
    for (let j = i + 1; j < prints.length; j++) assert.equal(samePicture(prints[i]!, prints[j]!), false, `seeds ${i + 1} and ${j + 1}`);
  }
});

test('plain pictures of different colours differ (dHash alone cannot tell them apart); a crop to another shape differs', async () => {
  const red = await print(png(40, 30, [200, 10, 10]));
  const blue = await print(png(40, 30, [10, 10, 200]));
  assert.equal(hashDistance(red.hash, blue.hash), 0);
  assert.equal(samePicture(red, blue), false);
  assert.equal(samePicture(red, await print(png(40, 30, [202, 12, 9]))), true);
  const photo = await print(await jpeg(7));
  const cropped = await print(await (await scene(7)).extract({ left: 0, top: 0, width: 240, height: 240 }).jpeg().toBuffer());
  assert.equal(samePicture(photo, cropped), false);
});

test('bytes that are no picture, and a picture past the pixel cap, have no print', async () => {
  assert.equal(await printPicture(Buffer.from('<!doctype html><html></html>')), null);
  const wide = await sharp({ create: { width: 5000, height: 5000, channels: 3, background: '#808080' } }).png().toBuffer();
  assert.equal(await printPicture(wide, { ...PICTURE_OPTIONS, maxPixels: 1_000_000 }), null);
  assert.ok(await printPicture(wide));
});
