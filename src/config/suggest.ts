// "Did you mean" for an unknown key path: the closest known path by edit distance, else one with the same leaf name.
// Pure.

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** The known path a typo most likely meant, or undefined when none is close. */
export function closestKey(path: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(path, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best !== undefined && bestDistance <= Math.min(3, Math.floor(path.length / 3))) return best;
  const leaf = path.slice(path.lastIndexOf('.') + 1);
  return known.find((candidate) => candidate.endsWith(`.${leaf}`));
}
