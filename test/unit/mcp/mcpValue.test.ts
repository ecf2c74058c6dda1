import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentText, toolValue } from '../../../src/tools/mcp/mcpValue.js';

const text = (t: string) => ({ type: 'text', text: t });

describe('toolValue', () => {
  it('prefers structuredContent over the text', () => {
    const answer = toolValue({ content: [text('{"a":1}')], structuredContent: { b: 2 } });
    assert.deepEqual(answer, { result: { b: 2 }, is_error: false });
  });

  it('parses the text as JSON when it is JSON', () => {
    assert.deepEqual(toolValue({ content: [text(' {"items":[1,2]} ')] }), {
      result: { items: [1, 2] },
      is_error: false,
    });
    assert.deepEqual(toolValue({ content: [text('42')] }).result, 42);
  });

  it('joins text parts with "\\n" before parsing', () => {
    assert.deepEqual(toolValue({ content: [text('{"a":'), text('1}')] }).result, { a: 1 });
    assert.equal(toolValue({ content: [text('one'), text('two')] }).result, 'one\ntwo');
  });

  it('keeps the raw text when it is not JSON', () => {
    assert.equal(toolValue({ content: [text('Echo: hi')] }).result, 'Echo: hi');
    assert.equal(toolValue({ content: [] }).result, '');
    assert.equal(toolValue({}).result, '');
  });

  it('renders non-text parts as [<type> content]', () => {
    const content = [
      text('Here:'),
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'x://y', text: 'hidden' } },
      { type: 'resource_link', uri: 'x://z', name: 'z' },
      { nonsense: true },
    ];
    assert.equal(
      contentText(content),
      'Here:\n[image content]\n[audio content]\n[resource content]\n[resource_link content]\n[unknown content]',
    );
  });

  it('carries isError with whatever value the result has', () => {
    assert.deepEqual(toolValue({ content: [text('boom')], isError: true }), { result: 'boom', is_error: true });
    assert.deepEqual(toolValue({ structuredContent: { code: 7 }, isError: true }), {
      result: { code: 7 },
      is_error: true,
    });
    assert.equal(toolValue({ content: [text('x')], isError: 'yes' }).is_error, false);
  });

  it('falls back to the text when structuredContent is null', () => {
    assert.deepEqual(toolValue({ content: [text('[1]')], structuredContent: null }).result, [1]);
  });
});
