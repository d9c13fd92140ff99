// Fixture for tests/e2e/test_plugin_js.py and the cross-language benchmark.
import { Plugin, Tool, ToolError, s, context, state } from '@warden/plugin-sdk';

// Lives as long as the instance: a cache of one conversation, never another's.
let calls = 0;
import { httpGet } from '@warden/plugin-sdk/capture';

const plugin = new Plugin()
  .tool(
    new Tool('echo', s.object({ text: s.string().describe('The text to return.') }), ({ text }) => text)
      .title('Echo')
      .description('Return `text` unchanged.')
      .readOnly()
      .idempotent(),
  )
  .tool(
    new Tool('boom', s.object({ plain: s.boolean().default(false).describe('Throw a string instead of an Error.') }), ({ plain }) => {
      if (plain) throw 'a plain string thrown';
      throw new RangeError('the fixture blew up on purpose');
    }).description('Throw an uncaught exception.'),
  )
  .tool(
    new Tool('spin', s.object({}), () => {
      for (;;) {}
    }).description('Loop forever.'),
  )
  .tool(
    new Tool('hog', s.object({}), () => {
      const kept = [];
      for (;;) kept.push(new Array(1 << 20).fill(kept.length));
    }).description('Allocate without bound.'),
  )
  .tool(
    new Tool('status', s.object({ url: s.string().url().describe('The URL to GET through the host.') }), async ({ url }) => {
      context.info(`fetching ${url}`);
      const response = await httpGet(url, { timeoutMs: 5000, maxBytes: 65536 });
      return { status: response.status, bytes: response.body.length, contentType: response.contentType ?? null };
    })
      .description('GET a URL through the host and report its status.')
      .output(s.object({ status: s.integer(), bytes: s.integer(), contentType: s.string().optional() }))
      .readOnly(),
  )
  .tool(
    new Tool('count', s.object({}), () => {
      calls += 1;
      const kept = (state.getJson('count') ?? 0) + 1;
      state.setJson('count', kept);
      return `kept ${kept}, in memory ${calls}`;
    }).description("Count this conversation's calls in the host's state, and this instance's in memory."),
  )
  .tool(
    new Tool('fail', s.object({ kind: s.enum(['not-found', 'timeout', 'access-denied']) }), ({ kind }) => {
      throw new ToolError(kind, `failing with ${kind} as asked`);
    }).description('Fail with the given tool error kind.'),
  );

export const { tools, resources, prompts, completions } = plugin.exports();
