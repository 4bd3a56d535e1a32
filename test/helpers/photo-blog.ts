/**
 * A photo blog written for the tests: each post is a few lines under its photo, followed by
 * a long comment thread in which readers talk about everything else. Across its pages the
 * words that set one page apart from the others (tf-idf, FOREST §3.1) are the readers', so the
 * wrapper FOREST learns is the comment list: a wrong wrapper, which the leave-one-out check
 * must reject (issue #10).
 */

const SUBJECTS = ['Heron at the weir', 'Frost on the allotments', 'Swifts over the mill', 'Fog in the valley', 'Moon above the quarry', 'Kingfisher by the lock',
  'Rain on the viaduct', 'Hares in the barley', 'Snow on the ridge', 'Starlings at dusk', 'Otter under the bridge', 'Lightning over the estuary'];
const READERS = ['zither', 'marimba', 'quince', 'kelp', 'yurt', 'fjord', 'tundra', 'saffron', 'obsidian', 'paprika', 'wombat', 'jicama', 'gazebo', 'lagoon', 'nutmeg', 'origami'];

export const photoSubject = (n: number) => SUBJECTS[n % SUBJECTS.length]!;

export function photoPost(n: number): string {
  const subject = photoSubject(n);
  const comments = Array.from({ length: 8 }, (_, i) => {
    const [a, b, c] = [READERS[(n * 3 + i) % READERS.length]!, READERS[(n * 5 + i * 7 + 1) % READERS.length]!, READERS[(n * 11 + i * 3 + 2) % READERS.length]!];
    // One reader names the photograph: the thread carries the page's own words too, as threads do.
    const aside = i === 2 ? ` Lovely one of the ${subject.toLowerCase()}.` : '';
    return `<li class="comment-item"><p>My ${a} and the ${b} reminded me of the ${c} we kept, the ${a} by the door and the ${b} in the hall, and nobody ever asked about the ${c} or the ${a} again.${aside}</p></li>`;
  }).join('\n');
  return `<!doctype html><html lang="en"><head><title>${subject} | Daily Frame</title><meta name="description" content="${subject}: today's photograph."></head>
<body><div id="site"><div class="masthead"><a href="/">Daily Frame</a></div>
<div class="photo-post"><h1>${subject}</h1><img src="/p/${n}.jpg" width="900" height="600">
<p class="words">${subject}. Taken this morning with the long lens from the usual spot on the footpath, as every day, before the light went flat and grey again.</p>
<p class="words">${subject} again in the afternoon, from the other bank: the same frame, an hour of waiting, and a flask of tea gone cold on the wall beside the gate.</p>
<p class="words">Prints of ${subject.toLowerCase()} are in the shop from Friday, on the matte paper, at the usual size, and the whole week is in the archive as always.</p></div>
<ol class="thread">${comments}</ol></div></body></html>`;
}
