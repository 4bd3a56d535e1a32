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

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
export const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

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
