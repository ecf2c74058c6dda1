// The restore gate: what producers may do before the supervisor's restore has queued what was pending. Accepts
// wait for it; the supervisor port refuses until then: steering a conversation not yet loaded commits over the
// stored one (refused as stale, so lost), and a cancel misses an event not yet queued.
import { DaemonError } from '../errors.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { SupervisorPort } from './producer.js';

export interface RestoreGate {
  /** Resolves when the restore is done; rejects when the start failed. */
  readonly done: Promise<void>;
  readonly isOpen: boolean;
  open(): void;
  fail(err: unknown): void;
}

/** Opens once the restore has queued what was pending; a failed start fails the accepts that waited for it. */
export function restoreGate(): RestoreGate {
  let resolve: () => void = () => {};
  let reject: (err: unknown) => void = () => {};
  let isOpen = false;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  done.catch(() => {}); // nobody may be waiting
  return {
    done,
    get isOpen() {
      return isOpen;
    },
    open: () => {
      isOpen = true;
      resolve();
    },
    fail: reject,
  };
}

/** The supervisor's controls as producers get them: each call throws until the gate is open. */
export function gatedPort(supervisor: Supervisor, gate: Pick<RestoreGate, 'isOpen'>): SupervisorPort {
  const check = (what: string): void => {
    if (!gate.isOpen) {
      throw new DaemonError('usage_invalid', `${what}: the runtime is still restoring (wait for ctx.restored)`);
    }
  };
  const steering = gatedMethods(supervisor.steering, check, 'steering');
  return {
    steering,
    intake: gatedMethods(supervisor.intake, check, 'intake'),
    subagents: gatedMethods(supervisor.subagents, check, 'subagents'),
    cancelEvent: (...args) => {
      check('cancelEvent');
      return supervisor.cancelEvent(...args);
    },
    pause: () => {
      check('pause');
      supervisor.pause();
    },
    resume: () => {
      check('resume');
      supervisor.resume();
    },
    status: (...args) => {
      check('status');
      return supervisor.status(...args);
    },
  };
}

/** `target` whose every method first runs `check` (which throws while the gate is closed). */
function gatedMethods<T extends object>(target: T, check: (what: string) => void, name: string): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        check(`${name}.${String(prop)}`);
        return value.apply(obj, args);
      };
    },
  });
}
