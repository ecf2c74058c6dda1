// defineTool: bound to a zod object schema, its argument type inferred, its JSON Schema the schema's input side
// (what the model sends), and arguments refused before `run`. The worker-side refusal over real processes is in
// test/integration/package/runApi.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { DaemonError } from '../../../src/errors.js';
import { defineTool } from '../../../src/tools/defineTool.js';

const ctx = { signal: new AbortController().signal, turnId: 'turn-1' };

describe('defineTool', () => {
  it('infers the argument type from the schema, defaults and transforms applied', async () => {
    const seen: Array<{ limit: number; tags: string[] }> = [];
    const tool = defineTool({
      name: 'search',
      description: 'Search.',
      input: z.object({ limit: z.number().int().default(10), tags: z.string().transform((s) => s.split(',')) }),
      run: (args) => {
        // Compile-time check: `limit` is a number and `tags` the transform's string[], not the input's string.
        const typed: { limit: number; tags: string[] } = args;
        seen.push(typed);
        return typed.tags.length;
      },
    });
    assert.equal(await tool.run({ tags: 'a,b' }, ctx), 2);
    assert.deepEqual(seen, [{ limit: 10, tags: ['a', 'b'] }]);
  });

  it('derives the JSON Schema of the input side: a default is optional, a transform is allowed', () => {
    const input = z.object({ limit: z.number().default(10), tags: z.string().transform((s) => s.split(',')) });
    // Premise: zod's default (output side) throws on the transform, and would require `limit`.
    assert.throws(() => z.toJSONSchema(input));
    assert.deepEqual(z.toJSONSchema(z.object({ limit: z.number().default(10) })).required, ['limit']);
    const tool = defineTool({ name: 'search', description: 'Search.', input, run: () => null });
    assert.deepEqual(tool.inputSchema.required, ['tags']);
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal('$schema' in tool.inputSchema, false);
  });

  it('refuses arguments that fail the schema before run is called, naming each', () => {
    let ran = 0;
    const tool = defineTool({
      name: 'lookup',
      description: 'Look up.',
      input: z.object({ order: z.string().regex(/^ORD-\d+$/), qty: z.number() }),
      run: () => {
        ran += 1;
        return 'ok';
      },
    });
    assert.throws(
      () => tool.run({ order: '123', qty: 'two' }, ctx),
      /^Error: lookup: invalid arguments: order: .*; qty: /,
    );
    assert.equal(ran, 0);
  });

  it('takes only an object schema: a compile error, and a usage error at run time', () => {
    const notObject = () =>
      // @ts-expect-error the input must be z.object({...})
      defineTool({ name: 'bad', description: 'Bad.', input: z.string(), run: () => null });
    assert.throws(notObject, (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, 'usage_invalid');
      assert.equal(err.message, 'defineTool "bad": input must be a zod object schema (z.object({...})), not string');
      return true;
    });
  });

  it('refuses a schema JSON Schema cannot express, naming the tool', () => {
    const dated = () =>
      defineTool({ name: 'when', description: 'When.', input: z.object({ at: z.date() }), run: () => null });
    assert.throws(dated, (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, 'usage_invalid');
      assert.match(err.message, /^defineTool "when": input has no JSON Schema for the model: /);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  it('accepts strict and loose object schemas alike', () => {
    const strict = defineTool({ name: 's', description: 'S.', input: z.strictObject({ a: z.string() }), run: () => 1 });
    const loose = defineTool({ name: 'l', description: 'L.', input: z.looseObject({ a: z.string() }), run: () => 1 });
    assert.deepEqual([strict.inputSchema.type, loose.inputSchema.type], ['object', 'object']);
  });
});
