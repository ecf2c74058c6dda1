// A store whose task reads can be held on cue: for tests of TaskBackend under racing reads and writes.
import type { TaskRecord } from '../../../src/domain/task.js';
import type { Store } from '../../../src/store/store.js';

/** The store, whose next `tasks.get` (once armed) reads at once but answers only when released. */
export function heldReads(store: Store) {
  let armed = false;
  let reading: (() => void) | null = null;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const read = new Promise<void>((resolve) => {
    reading = resolve;
  });
  const tasks = {
    ...store.tasks,
    get: async (id: string): Promise<TaskRecord | null> => {
      const task = await store.tasks.get(id);
      if (!armed) return task;
      armed = false;
      reading?.();
      await released;
      return task;
    },
  };
  const held = Object.create(store, { tasks: { value: tasks } }) as Store;
  return { store: held, arm: () => (armed = true), read, release };
}
