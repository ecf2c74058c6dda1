// The knowledge block (reference §7).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KNOWLEDGE_HEADING, knowledgeArgs, renderKnowledge } from '../../../src/context/knowledge.js';

describe('renderKnowledge', () => {
  it('renders the heading and one line per hit', () => {
    const block = renderKnowledge(
      {
        hits: [
          { title: 'Runbook', uri: 'kb://runbook', snippet: 'restart  the\nservice' },
          { id: 'doc-2', snippet: 'no title' },
        ],
      },
      16_384,
    );
    assert.equal(
      block.text,
      `${KNOWLEDGE_HEADING}\n- [Runbook](kb://runbook): restart the service\n- [untitled](doc-2): no title`,
    );
    assert.equal(block.hits, 2);
    assert.equal(block.bytes, new TextEncoder().encode(block.text).length);
  });

  it('stops before the block would exceed max_bytes', () => {
    const hits = Array.from({ length: 10 }, (_, i) => ({ title: `t${i}`, uri: `u${i}`, snippet: 'x'.repeat(50) }));
    const block = renderKnowledge({ hits }, KNOWLEDGE_HEADING.length + 150);
    assert.equal(block.hits, 2);
    assert.ok(block.bytes <= KNOWLEDGE_HEADING.length + 150);
  });

  it('is no block without hits, or when nothing fits', () => {
    assert.equal(renderKnowledge({ hits: [] }, 1000).text, '');
    assert.equal(renderKnowledge('nothing', 1000).text, '');
    assert.equal(renderKnowledge({ hits: [{ title: 'a', snippet: 'b' }] }, 10).text, '');
  });

  it('asks for the message with top_k', () => {
    assert.deepEqual(knowledgeArgs('how do I deploy?', 5), { query: 'how do I deploy?', top_k: 5 });
  });
});
