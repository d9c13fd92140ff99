// Unit tests of the SDK parts that run outside a component: `npm test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { s } from '../schema.js';
import { ToolError, CapabilityError, toToolError, host } from '../errors.js';
import { ToolOutput, intoWit } from '../output.js';

const invalid = (fn) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolError && e.kind === 'invalid-arguments', String(e));
    return e.message;
  }
  assert.fail('no error');
};

test('schema: JSON Schema and validation agree', () => {
  const args = s.object({
    name: s.string().min(1).describe('Who'),
    url: s.string().url().optional(),
    n: s.integer().min(1).default(3),
    tags: s.array(s.enum(['a', 'b'])).optional(),
  });
  assert.deepEqual(args.toJSON(), {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'Who' },
      url: { type: 'string', format: 'uri' },
      n: { type: 'integer', minimum: 1, default: 3 },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    },
    additionalProperties: false,
    required: ['name'],
  });
  assert.deepEqual(args.parse({ name: 'x' }), { name: 'x', n: 3 });
  assert.equal(invalid(() => args.parse({ name: '' })), '`name` must not be empty');
  assert.equal(invalid(() => args.parse({})), '`name` is missing');
  assert.equal(invalid(() => args.parse({ name: 'x', url: 'nope' })), '`url` must be an absolute URL such as "https://www.example.com/"');
  assert.equal(invalid(() => args.parse({ name: 'x', n: 1.5 })), '`n` must be a whole number');
  assert.equal(invalid(() => args.parse({ name: 'x', tags: ['c'] })), '`tags[0]` must be one of "a", "b"');
  assert.equal(invalid(() => args.parse({ name: 'x', extra: 1 })), '`extra` is not a known property (known: `name`, `url`, `n`, `tags`)');
  assert.equal(invalid(() => args.parse([])), '`arguments` must be an object, not an array');
});

test('errors: anything thrown becomes a tool error with its message', () => {
  assert.equal(String(toToolError(ToolError.notFound('no order 42'))), 'not found: no order 42');
  assert.equal(toToolError(new RangeError('out of range')).message, 'RangeError: out of range');
  assert.equal(toToolError('plain').message, 'uncaught exception: plain');
  assert.equal(toToolError({ a: 1 }).message, 'uncaught exception: {"a":1}');
  assert.equal(toToolError(undefined).message, 'uncaught exception: undefined');
  const cases = { 'access-denied': 'access-denied', gone: 'not-found', 'invalid-argument': 'invalid-arguments', io: 'failed', 'limit-reached': 'failed', timeout: 'timeout' };
  for (const [from, to] of Object.entries(cases)) {
    assert.equal(toToolError(new CapabilityError(from, 'm')).kind, to, from);
  }
});

test('errors: a host error payload becomes a CapabilityError', () => {
  const denied = Object.assign(new Error('[object Object]'), { payload: { tag: 'access-denied', val: 'add the grant' } });
  assert.throws(() => host(() => { throw denied; }), (e) => e instanceof CapabilityError && e.kind === 'access-denied' && e.message === 'add the grant');
});

test('output: strings, objects and ToolOutput', () => {
  assert.deepEqual(intoWit('hi'), { content: [{ tag: 'text', val: 'hi' }], structured: undefined });
  const json = intoWit({ a: 1 });
  assert.equal(json.structured, '{"a":1}');
  assert.equal(json.content[0].val, '{\n  "a": 1\n}');
  const out = intoWit(ToolOutput.text('t').withStructured({ b: 2 }));
  assert.deepEqual(out, { content: [{ tag: 'text', val: 't' }], structured: '{"b":2}' });
});

test('capability wrappers: async, resources wrapped and unwrapped, errors typed', async () => {
  const { asyncModule } = await import('../wrap.js');
  class Page {
    title() { return 'T'; }
    fail() { throw Object.assign(new Error('x'), { payload: { tag: 'stale-element', val: 'take a new snapshot' } }); }
  }
  const raw = {
    openPage: () => new Page(),
    consoleMessages: (page) => (page instanceof Page ? ['ok'] : assert.fail('a wrapped page reached the host')),
    listSessions: () => ['a'],
    read: () => new Uint8Array([1, 2]),
    stat: () => ({ kind: 'file', size: 2n }),
  };
  const api = asyncModule(raw);
  const page = await api.openPage();
  assert.ok(api.listSessions() instanceof Promise);
  assert.equal(await page.title(), 'T');
  assert.deepEqual(await api.read(), new Uint8Array([1, 2]));
  assert.deepEqual(await api.stat(), { kind: 'file', size: 2n });
  assert.deepEqual(await api.consoleMessages(page), ['ok']);
  await assert.rejects(page.fail(), (e) => e instanceof CapabilityError && e.kind === 'stale-element' && toToolError(e).kind === 'not-found');
});

test('settings: strings as written, other values as JSON, set by the test harness', async () => {
  const { setSettings } = await import('../testing.mjs');
  const { settings } = await import('../index.js');
  assert.equal(settings.get('region'), undefined);
  assert.deepEqual(settings.all(), {});
  setSettings({ region: 'eu-west', page: { rows: 50 }, quoted: '"x"' });
  assert.equal(settings.get('region'), 'eu-west');
  assert.equal(settings.json('region'), 'eu-west');
  assert.deepEqual(settings.json('page'), { rows: 50 });
  assert.equal(settings.json('quoted'), 'x');
  assert.deepEqual(Object.keys(settings.all()), ['page', 'quoted', 'region']);
});
