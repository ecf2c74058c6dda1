// A read the page repeats: again whenever its trigger changes (a feed event arrived) and every few seconds.
import { useEffect, useState } from 'preact/hooks';

/** Re-reads `load` whenever `key` changes and every `everyMs`; the last value and the last error. */
export function useReload<T>(
  load: () => Promise<T>,
  key: unknown,
  everyMs: number,
): { value: T | null; error: string | null } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: key and tick are the triggers of a re-read.
  useEffect(() => {
    load().then(
      (v) => {
        setValue(v);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  }, [key, tick]);
  return { value, error };
}
