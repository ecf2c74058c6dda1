// The support agent's code tool. Its module is imported by each turn's worker process (functions cannot cross a
// process boundary), so the tools live in a module of their own that createAgent's `toolsModule` names.
import { defineTool } from 'agentd/tools';
import { z } from 'zod';

const ORDERS: Record<string, { state: string; eta: string }> = {
  'ORD-1001': { state: 'shipped', eta: '2 days' },
  'ORD-1002': { state: 'packing', eta: '5 days' },
};

export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look up an order by its id (ORD-<digits>): its state and expected delivery.',
  input: z.object({ order: z.string().regex(/^ORD-\d+$/) }),
  // `order` is typed `string`, checked against the schema before this runs.
  run: ({ order }) => ORDERS[order] ?? { error: `no order ${order}` },
});

export const tools = [lookupOrder];
