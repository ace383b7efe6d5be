/**
 * "Did you mean": the known name a typo most likely meant. A name counts as meant when it is the
 * same but for `-`/`_` and case (`Notify_Slack`, `STATUS_INTERVAL`), or within an edit distance
 * of 2 (a swap of two neighbours counts 1: `cros` → `cors`), and the edits do not replace the whole
 * word (`x` does not mean `ui`). The closest wins; between equally close ones, the first given.
 */
export function nearestName(word: string, known: Iterable<string>): string | undefined {
  const wanted = normalise(word);
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    if (name === word) return undefined;
    const distance = editDistance(wanted, normalise(name));
    if (distance > MAX_DISTANCE || distance >= Math.min(wanted.length, name.length)) continue;
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/** `; did you mean "x"?` after a problem about `word`, or nothing. */
export function didYouMean(word: string, known: Iterable<string>): string {
  const name = nearestName(word, known);
  return name === undefined ? '' : `; did you mean "${name}"?`;
}

const MAX_DISTANCE = 2;

function normalise(name: string): string {
  return name.toLowerCase().replaceAll('_', '-');
}

/** Levenshtein distance with adjacent transpositions (optimal string alignment). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return MAX_DISTANCE + 1;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
