// The late-bound ports through which tools that start work reach their producers. The runtime owns the slot and
// hands it to the supervisor (whose tool host calls it) and to the producers (which plug their handlers in at
// start); until one is plugged in, its tool answers that it is not available.
import type { DeliveryReceipt, DeliveryRequest, ToolCaller, WorkPorts } from '../tools/toolOutcome.js';

export class WorkPortSlot implements WorkPorts {
  private readonly plugged: Partial<WorkPorts> = {};

  /** Plugs `handler` in as port `name`; returns the unplug function. A second plug of one port is a wiring error. */
  plug<K extends keyof WorkPorts>(name: K, handler: WorkPorts[K]): () => void {
    if (this.plugged[name] !== undefined) throw new Error(`work port ${name} is already plugged`);
    this.plugged[name] = handler;
    return () => {
      if (this.plugged[name] === handler) delete this.plugged[name];
    };
  }

  deliver(req: DeliveryRequest): Promise<DeliveryReceipt> {
    const deliver = this.plugged.deliver;
    return deliver ? deliver(req) : Promise.resolve({ ok: false, error: 'no producer accepts messages here' });
  }

  sideStart(caller: ToolCaller, instruction: string): { conversation: string } | string {
    const start = this.plugged.sideStart;
    return start ? start(caller, instruction) : 'no producer starts side tasks here';
  }
}
