/** Deterministic made-up news prose for the synthetic web: the same seed gives the same text. */

const WORDS = (
  'council harbour budget river festival library railway museum election market bridge school ' +
  'hospital winter summer orchard vineyard factory workers mayor committee report inquiry storm ' +
  'coast village station tunnel airport farmers teachers students residents volunteers engineers ' +
  'scientists archive season museum theatre orchestra stadium league final record growth decline ' +
  'plan proposal vote delay repair opening closure review study survey figures prices rents wages ' +
  'traffic ferry cycle route park garden forest valley mountain lake island district quarter ' +
  'northern southern eastern western local regional national historic quiet busy new old early late ' +
  'announced confirmed rejected approved delayed opened closed discovered restored measured ' +
  'published reported expected questioned welcomed criticised funded planned built moved ' +
  'yesterday today tonight morning evening weekend month year decade century'
).split(/\s+/);

const FIRST = ['Ada', 'Bram', 'Carla', 'Dev', 'Elin', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kemal', 'Lena', 'Mira', 'Nils', 'Olga', 'Pavel'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Rossi', 'Novak', 'Haddad', 'Brennan', 'Silva', 'Kowalski', 'Dubois', 'Petrov'];

/** mulberry32: a tiny seeded PRNG, good enough for made-up text. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedOf(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export function words(random: () => number, count: number): string[] {
  return Array.from({ length: count }, () => pick(random, WORDS));
}

export function sentence(random: () => number): string {
  const list = words(random, 8 + Math.floor(random() * 12));
  return `${capitalize(list.join(' '))}.`;
}

export function paragraph(random: () => number): string {
  return Array.from({ length: 2 + Math.floor(random() * 4) }, () => sentence(random)).join(' ');
}

export function headline(random: () => number): string {
  return words(random, 5 + Math.floor(random() * 5)).map(capitalize).join(' ');
}

export function personName(random: () => number): string {
  return `${pick(random, FIRST)} ${pick(random, LAST)}`;
}
