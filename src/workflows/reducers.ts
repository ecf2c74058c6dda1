// Run-variable reducers (producers reference §2.5 `write_var`): exactly agentd's coercions; no mode ever errors.
// Pure.

export const REDUCERS = ['overwrite', 'append', 'merge', 'union'] as const;
export type Reducer = (typeof REDUCERS)[number];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The variable's new value after writing `value` over `old` (undefined = absent) with `mode`. */
export function reduceVar(old: unknown, value: unknown, mode: Reducer): unknown {
  switch (mode) {
    case 'overwrite':
      return value;
    case 'append':
      if (old === undefined) return Array.isArray(value) ? value : [value];
      if (Array.isArray(old)) return Array.isArray(value) ? [...old, ...value] : [...old, value];
      return [old, value];
    case 'merge':
      if (isObject(old)) return isObject(value) ? { ...old, ...value } : old;
      return value;
    case 'union': {
      if (!Array.isArray(old)) return value;
      const seen = new Set(old.map((v) => JSON.stringify(v)));
      const added = (Array.isArray(value) ? value : [value]).filter((v) => !seen.has(JSON.stringify(v)));
      return [...old, ...added];
    }
  }
}
