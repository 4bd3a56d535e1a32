import assert from 'node:assert/strict';
import { test } from 'node:test';
import { francAll } from 'franc';
import { data } from 'franc/data.js';
import { rankLanguages } from '../../src/extract/trigram-ranking.js';
import { seededRandom } from '../../src/util/random.js';

/**
 * The fast ranking must be franc's, bit for bit: the same languages in the same order with the
 * same scores. Texts are drawn from franc's own models (every language of every script, alone and
 * mixed two by two, so that scores come close and ties happen), around the minimum and maximum
 * lengths, and texts franc cannot place.
 */

const models = Object.values(data).flatMap((languages) => Object.values(languages).map((model) => model.split('|')));

/** `length` characters of trigrams drawn from the given models (a text "in" those languages, as franc sees it). */
function textOf(random: () => number, length: number, ...from: string[][]): string {
  let text = '';
  while (text.length < length) {
    const model = from[Math.floor(random() * from.length)]!;
    // Frequent trigrams more often: the head of a model is what its language is made of.
    text += model[Math.floor(random() ** 2 * model.length)]!;
  }
  return text.slice(0, length);
}

test('the ranking is franc\'s on every language of every script, alone and mixed', () => {
  const random = seededRandom(20261125);
  assert.ok(models.length > 150, 'franc\'s models, every language it knows by trigrams');
  for (const [index, model] of models.entries()) {
    const other = models[Math.floor(random() * models.length)]!;
    for (const text of [textOf(random, 1000, model), textOf(random, 300, model, other), textOf(random, 2500, model)]) {
      assert.deepEqual(rankLanguages(text, 200), francAll(text, { minLength: 200 }), `model ${index}: ${text.slice(0, 60)}`);
    }
  }
});

test('the ranking is franc\'s at the edges: too short, no letters, one-language scripts, real sentences', () => {
  const texts = [
    '', 'short', '1234567890 '.repeat(40), '... --- ... '.repeat(30),
    'Die neue Brücke über den Kanal wurde am Montag eröffnet, nachdem die Arbeiten drei Jahre gedauert hatten. '.repeat(3),
    'The new bridge over the canal opened on Monday after three years of work, the city said in a statement. '.repeat(3),
    'Le nouveau pont sur le canal a été inauguré lundi après trois ans de travaux, a indiqué la ville. '.repeat(3),
    'Новый мост через канал открыли в понедельник после трёх лет работ, сообщили в мэрии города. '.repeat(3),
    '새로운 다리가 월요일에 개통되었습니다. 공사는 삼 년 동안 계속되었습니다. '.repeat(6),
    'สะพานใหม่ข้ามคลองเปิดใช้งานเมื่อวันจันทร์หลังจากการก่อสร้างสามปี '.repeat(5),
    'Mixed: the bridge / die Brücke / le pont / el puente / il ponte / a ponte. '.repeat(4),
  ];
  for (const text of texts) {
    for (const minLength of [10, 200]) assert.deepEqual(rankLanguages(text, minLength), francAll(text, { minLength }), text.slice(0, 40));
  }
});
