// Layering of coerced values by key path (later wins; free-key maps merge) and the frozen Config tree they build.
// Pure data handling: no I/O.

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Sets `path` to `value` over any earlier value; with `merges`, two maps combine key by key. */
export function layerValue(values: Map<string, unknown>, path: string, value: unknown, merges: boolean): void {
  const prior = values.get(path);
  values.set(path, merges && isRecord(prior) && isRecord(value) ? { ...prior, ...value } : value);
}

/** Nests `a.b.c → v` entries into `{a: {b: {c: v}}}`, copying every value so nothing is shared with the caller. */
export function buildTree(values: Map<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, value] of values) {
    const parts = path.split('.');
    const leaf = parts.pop() ?? path;
    let node = root;
    for (const part of parts) {
      const child = node[part];
      const next: Record<string, unknown> = isRecord(child) ? child : {};
      node[part] = next;
      node = next;
    }
    node[leaf] = structuredClone(value);
  }
  return root;
}

/** Freezes an object graph in place and returns it. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
