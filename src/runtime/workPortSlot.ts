// The late-bound ports through which tools that start work reach their producers: a typed registry by port name.
// The runtime owns the slot and hands it to the supervisor (whose tool host looks ports up) and to the producers
// (which plug their handlers in at start); until one is plugged in, the tool answers that it is not available.
import type { WorkPortMap, WorkPortName, WorkPorts } from '../tools/toolOutcome.js';

export class WorkPortSlot implements WorkPorts {
  private readonly plugged = new Map<WorkPortName, WorkPortMap[WorkPortName]>();

  /** Plugs `handler` in as port `name`; returns the unplug function. A second plug of one port is a wiring error. */
  plug<K extends WorkPortName>(name: K, handler: WorkPortMap[K]): () => void {
    if (this.plugged.has(name)) throw new Error(`work port ${name} is already plugged`);
    this.plugged.set(name, handler);
    return () => {
      if (this.plugged.get(name) === handler) this.plugged.delete(name);
    };
  }

  port<K extends WorkPortName>(name: K): WorkPortMap[K] | null {
    return (this.plugged.get(name) as WorkPortMap[K] | undefined) ?? null;
  }
}
