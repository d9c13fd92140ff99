// The export glue, in Node with the host stand-ins: `node --import ./testing.mjs --test test/plugin.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Plugin, Tool, ToolError, ToolOutput, s } from '../index.js';
import { httpGet } from '../capture.js';

const plugin = new Plugin()
  .tool(new Tool('echo', s.object({ text: s.string().describe('The text.') }), ({ text }) => text).title('Echo').readOnly())
  .tool(new Tool('boom', s.object({}), () => { throw new TypeError('bad'); }))
  .tool(new Tool('later', s.object({ n: s.integer().default(2) }), async ({ n }) => ({ doubled: n * 2 })))
  .tool(new Tool('fetch', s.object({}), async () => httpGet('http://example.com/')))
  .tool(new Tool('bigint', s.object({}), async () => ({ n: 1n })))
  .tool(new Tool('refuse', () => { throw ToolError.accessDenied('no'); }))
  .resource({ uri: 'notes://all', name: 'notes' }, (uri) => [{ uri, mimeType: 'text/plain', body: { tag: 'text', val: 'all notes' } }]);
const { tools, resources, prompts, completions } = plugin.exports();

/** What the component binding does with an export: a thrown value is the error variant. */
async function call(name, args) {
  try {
    return { ok: await tools.callTool(name, JSON.stringify(args)) };
  } catch (variant) {
    return { err: variant };
  }
}

test('listTools: names, schemas, annotations', () => {
  const [echo] = tools.listTools();
  assert.equal(echo.name, 'echo');
  assert.equal(echo.title, 'Echo');
  assert.deepEqual(JSON.parse(echo.inputSchema).properties.text, { type: 'string', description: 'The text.' });
  assert.equal(echo.annotations.readOnly, true);
  assert.equal(echo.task, 'never');
});

test('callTool: results and error variants', async () => {
  assert.deepEqual(await call('echo', { text: 'hi' }), { ok: { content: [{ tag: 'text', val: 'hi' }], structured: undefined } });
  assert.deepEqual(await call('echo', {}), { err: { tag: 'invalid-arguments', val: '`text` is missing' } });
  assert.deepEqual(await call('boom', {}), { err: { tag: 'failed', val: 'TypeError: bad' } });
  assert.equal((await call('later', {})).ok.structured, '{"doubled":4}');
  assert.equal((await call('bigint', {})).err.tag, 'failed');
  assert.deepEqual(await call('refuse', {}), { err: { tag: 'access-denied', val: 'no' } });
  assert.equal((await call('fetch', {})).err.tag, 'failed');
  assert.deepEqual(await call('nope', {}), { err: { tag: 'not-found', val: 'no tool named `nope`' } });
  assert.equal((await call('echo', 'not an object')).err.tag, 'invalid-arguments');
});

test('resources, prompts and completions', () => {
  assert.deepEqual(resources.listResources(), [{ uri: 'notes://all', name: 'notes', description: undefined, mimeType: undefined }]);
  assert.equal(resources.readResource('notes://all')[0].body.val, 'all notes');
  assert.throws(() => resources.readResource('notes://none'), (v) => v.tag === 'not-found');
  assert.deepEqual(prompts.listPrompts(), []);
  assert.deepEqual(completions.complete(), { values: [], total: undefined, hasMore: false });
});

test('ToolOutput.json', () => {
  assert.deepEqual(ToolOutput.json({ a: 1 }).structured, { a: 1 });
});
