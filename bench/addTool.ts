// The one code tool of the prefix benchmark (issue 14: "a one-tool agent"): the worker imports this module.
import type { CodeTool } from '../src/tools/codeTools.js';

export const tools: CodeTool[] = [
  {
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    run: (args) => (args.a as number) + (args.b as number),
  },
];
