// The export glue, in Node with the host stand-ins: `node --import ./testing.mjs --test test/plugin.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Plugin, Tool, ToolError, ToolOutput, Prompt, PromptMessage, Completion, AskError, Question, matchTemplate, context, s } from '../index.js';
import { httpGet } from '../capture.js';

const plugin = new Plugin()
  .tool(new Tool('echo', s.object({ text: s.string().describe('The text.') }), ({ text }) => text).title('Echo').readOnly())
  .tool(new Tool('boom', s.object({}), () => { throw new TypeError('bad'); }))
  .tool(new Tool('later', s.object({ n: s.integer().default(2) }), async ({ n }) => ({ doubled: n * 2 })))
  .tool(new Tool('fetch', s.object({}), async () => httpGet('http://example.com/')))
  .tool(new Tool('bigint', s.object({}), async () => ({ n: 1n })))
  .tool(new Tool('refuse', () => { throw ToolError.accessDenied('no'); }))
  .tool(new Tool('ask', s.object({}), async () => (await context.elicit('Name?', s.object({ name: s.string() }))).action))
  .resource({ uri: 'notes://all', name: 'notes' }, (uri) => [{ uri, mimeType: 'text/plain', body: { tag: 'text', val: 'all notes' } }])
  .resourceTemplate({ uriTemplate: 'notes://{id}/text', name: 'note' }, (uri, { id }) => [{ uri, body: { tag: 'text', val: `note ${id}` } }])
  .prompt(new Prompt('review').title('Review').argument('file', 'The file').optionalArgument('tone', 'How'), ({ file, tone }) => [
    PromptMessage.user(`Review ${file}${tone ? ` (${tone})` : ''}`),
    PromptMessage.assistant('Sure.'),
  ])
  .completion((ref, argument, value) => (ref.kind === 'prompt' && argument === 'tone' ? Completion.matching(['gentle', 'grumpy', 'terse'], value) : []));
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

/** What the binding does with a non-tool export: awaits it, a thrown value is the error variant. */
async function settle(run) {
  try {
    return { ok: await run() };
  } catch (variant) {
    return { err: variant };
  }
}

test('resources and resource templates', async () => {
  assert.deepEqual(resources.listResources(), [{ uri: 'notes://all', name: 'notes', description: undefined, mimeType: undefined }]);
  assert.deepEqual(resources.listTemplates(), [{ uriTemplate: 'notes://{id}/text', name: 'note', description: undefined, mimeType: undefined }]);
  assert.equal((await resources.readResource('notes://all'))[0].body.val, 'all notes');
  assert.equal((await resources.readResource('notes://7/text'))[0].body.val, 'note 7');
  assert.deepEqual(await settle(() => resources.readResource('notes://none')), {
    err: { tag: 'not-found', val: 'this plugin has no resource `notes://none`' },
  });
});

test('URI templates', () => {
  assert.deepEqual(matchTemplate('sessions://{id}/info', 'sessions://abc/info'), { id: 'abc' });
  assert.equal(matchTemplate('sessions://{id}/info', 'sessions:///info'), undefined);
  assert.equal(matchTemplate('sessions://{id}/info', 'sessions://a/b/info'), undefined);
  assert.deepEqual(matchTemplate('file://{+path}', 'file:///etc/hosts'), { path: '/etc/hosts' });
  assert.deepEqual(matchTemplate('x://{a}-{b}', 'x://1-2-3'), { a: '1', b: '2-3' });
  assert.deepEqual(matchTemplate('x://fixed', 'x://fixed'), {});
  assert.equal(matchTemplate('x://fixed', 'x://fixed2'), undefined);
});

test('prompts: listed, filled, a missing argument named', async () => {
  assert.deepEqual(prompts.listPrompts(), [
    {
      name: 'review',
      title: 'Review',
      description: undefined,
      arguments: [
        { name: 'file', description: 'The file', required: true },
        { name: 'tone', description: 'How', required: false },
      ],
    },
  ]);
  assert.deepEqual(await settle(() => prompts.getPrompt('review', [['file', 'a.rs'], ['tone', 'gentle']])), {
    ok: {
      description: undefined,
      messages: [
        { role: 'user', content: { tag: 'text', val: 'Review a.rs (gentle)' } },
        { role: 'assistant', content: { tag: 'text', val: 'Sure.' } },
      ],
    },
  });
  assert.deepEqual(await settle(() => prompts.getPrompt('review', [['tone', 'x']])), {
    err: { tag: 'invalid-arguments', val: 'prompt `review` needs the argument `file`' },
  });
  assert.equal((await settle(() => prompts.getPrompt('nope', []))).err.tag, 'not-found');
  assert.throws(() => new Prompt('bad name'), TypeError);
});

test('completions', async () => {
  assert.deepEqual(await completions.complete({ tag: 'prompt', val: 'review' }, 'tone', 'g', []), {
    values: ['gentle', 'grumpy'],
    total: 2,
    hasMore: false,
  });
  assert.deepEqual(await completions.complete({ tag: 'resource-template', val: 'notes://{id}/text' }, 'id', '', []), {
    values: [],
    total: undefined,
    hasMore: false,
  });
  const many = Completion.matching(Array.from({ length: 300 }, (_, i) => `v${i}`), 'v1');
  assert.equal(many.total, 111);
  assert.equal(many.values.length, 100);
  assert.equal(many.hasMore, true);
});

test('asking the client: questions, and an unsupported ask as a failed tool error', async () => {
  assert.deepEqual(Question.elicitUrl('Sign in', 'https://a.example/'), { kind: 'elicit-url', message: 'Sign in', url: 'https://a.example/' });
  await assert.rejects(context.ask({ q: Question.listRoots() }), (e) => e instanceof AskError && e.kind === 'unsupported');
  await assert.rejects(context.ask({ q: { kind: 'guess' } }), TypeError);
  const asked = await call('ask', {});
  assert.equal(asked.err.tag, 'failed');
  assert.match(asked.err.val, /^the client cannot do this: host capabilities are unavailable/);
  assert.deepEqual(context.clientCapabilities(), { elicitation: false, elicitationUrl: false, sampling: false, roots: false });
});

test('ToolOutput.json', () => {
  assert.deepEqual(ToolOutput.json({ a: 1 }).structured, { a: 1 });
});

test('groups: the export lists them, a group given no tools takes the rest', async () => {
  const { Group } = await import('../index.js');
  const grouped = new Plugin()
    .group(new Group('files', 'read and write files').tools(['get', 'put']).needs(['sftp']))
    .tool(new Tool('get', () => 'g'))
    .tool(new Tool('put', () => 'p'))
    .tool(new Tool('ping', () => 'pong'))
    .tool(new Tool('time', () => 'now'))
    .group(new Group('misc', 'everything else'));
  const exported = grouped.exports();
  assert.deepEqual(exported.groups.groups(), [
    { name: 'files', summary: 'read and write files', tools: ['get', 'put'], needs: ['sftp'] },
    { name: 'misc', summary: 'everything else', tools: ['ping', 'time'], needs: [] },
  ]);
  // A plugin without groups exports an empty list (all its tools in `default`).
  assert.deepEqual(plugin.exports().groups.groups(), []);
});

test('groups: mistakes are refused with what to fix', async () => {
  const { Group } = await import('../index.js');
  assert.throws(() => new Group('Files', 'x'), /group name "Files" is invalid: use \[a-z0-9_-\]\{1,32\}/);
  assert.throws(() => new Group('x'.repeat(33), 'x'), /is invalid/);
  assert.throws(() => new Group('files'), /give a one-line summary/);
  assert.throws(() => new Group('files', 'x').needs(['ftp']), /unknown capability "ftp" in \.needs\(\); use some of: browser, capture-http/);
  assert.throws(() => new Group('files', 'x').tools('get'), /takes a list of tool names/);
  assert.throws(() => new Plugin().group({ name: 'files' }), /give a new Group\(name, summary\)/);
  assert.throws(() => new Plugin().group(new Group('a', 'x').tools(['t'])).group(new Group('a', 'y').tools(['u'])), /group `a` is declared twice/);
  assert.throws(() => new Plugin().group(new Group('a', 'x')).group(new Group('b', 'y')), /groups `a` and `b` are both given no tools/);
  const t = (name) => new Tool(name, () => name);
  const unknown = new Plugin().tool(t('get')).group(new Group('files', 'x').tools(['get', 'gte']));
  assert.throws(() => unknown.exports(), /group `files` names tool `gte`, which this plugin does not have \(its tools: get\)/);
  const twice = new Plugin().tool(t('get')).group(new Group('a', 'x').tools(['get'])).group(new Group('b', 'y').tools(['get']));
  assert.throws(() => twice.exports(), /tool `get` is in two groups, `a` and `b`/);
  // Named twice in one group is one membership.
  const same = new Plugin().tool(t('get')).group(new Group('a', 'x').tools(['get', 'get']));
  assert.deepEqual(same.exports().groups.groups()[0].tools, ['get']);
});
