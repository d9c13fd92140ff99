// Fixture for tests/e2e/test_plugin_js.py, test_sdk_js_features.py, test_sdk_tool_groups.py and
// the cross-language benchmark.
import { Plugin, Tool, Group, ToolError, Prompt, PromptMessage, Completion, Question, EmbeddedResource, s, context, state, settings } from '@warden/plugin-sdk';
import { openPage } from '@warden/plugin-sdk/browser';
import * as terminal from '@warden/plugin-sdk/terminal';
import * as sftp from '@warden/plugin-sdk/sftp';
import * as rdp from '@warden/plugin-sdk/rdp';

// Lives as long as the instance: a cache of one conversation, never another's.
let calls = 0;
import { httpGet } from '@warden/plugin-sdk/capture';

// Two tool groups (all listed unless the manifest chooses): `basics` names its tools, `more`
// (given none) takes the rest.
const plugin = new Plugin()
  .group(new Group('basics', 'echo and chosen failures').tools(['echo', 'fail']))
  .group(new Group('more', 'everything else the fixture does'))
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
    new Tool(
      'api',
      s.object({
        url: s.string().describe('Where to send the request (grants.http).'),
        method: s.string().default('POST'),
        body: s.string().optional().describe('A JSON body.'),
        repeat: s.integer().optional().describe('Send the body this many times over (a large body).'),
      }),
      async ({ url, method, body, repeat }) => {
        const sent = body && repeat ? body.repeat(repeat) : body;
        const response = await fetch(url, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: sent });
        const seen = JSON.stringify({ status: response.status, headers: [...response.headers], body: await response.text() });
        // Whatever came back is logged and kept: none of it may carry a credential.
        context.info(`api answered: ${seen}`);
        state.set('api-last', seen);
        return seen;
      },
    ).description('Send a request with fetch(); log it, keep it in state and return status, headers and body.'),
  )
  .tool(
    new Tool('kept', s.object({}), () => new TextDecoder().decode(state.get('api-last') ?? new Uint8Array())).description(
      'What `api` kept in state.',
    ),
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
    new Tool('settings', s.object({}), () =>
      JSON.stringify({ greeting: settings.get('greeting') ?? null, limits: settings.json('limits') ?? null, keys: Object.keys(settings.all()) }),
    )
      .description('Return what the plugin reads of its settings, as JSON.')
      .readOnly(),
  )
  .tool(
    new Tool('fail', s.object({ kind: s.enum(['not-found', 'timeout', 'access-denied']) }), ({ kind }) => {
      throw new ToolError(kind, `failing with ${kind} as asked`);
    }).description('Fail with the given tool error kind.'),
  );


// Asking the client, tasks and cancellation.
plugin
  .tool(
    new Tool('greet', s.object({}), async () => {
      // Before the ask: runs again when the 2026-07-28 client's retry replays the call.
      const runs = (state.getJson('greet-runs') ?? 0) + 1;
      state.setJson('greet-runs', runs);
      const { name, color } = await context.ask({
        name: Question.elicit('Your name?', s.object({ name: s.string() })),
        color: Question.elicit('Favourite colour?', { type: 'object', properties: { color: { type: 'string' } } }),
      });
      if (name.action !== 'accept') return `no name: ${name.action}`;
      return `${name.content.name} likes ${color.action === 'accept' ? color.content.color : 'nothing'} (run ${runs})`;
    }).description('Ask the user two questions at once.'),
  )
  .tool(
    new Tool('link', s.object({ url: s.string() }), async ({ url }) => {
      const answer = await context.elicitUrl('Sign in to the example service', url);
      return `link: ${answer.action}`;
    }).description('Send the user to a page.'),
  )
  .tool(
    new Tool('summarize', s.object({ text: s.string() }), async ({ text }) => `model said: ${await context.sampleText(`Summarize: ${text}`, 50)}`)
      .description("Ask the client's model."),
  )
  .tool(
    new Tool('roots', s.object({}), async () => (await context.listRoots()).map((r) => `${r.name ?? '-'}=${r.uri}`).join(' '))
      .description("List the client's roots."),
  )
  .tool(new Tool('caps', s.object({}), () => context.clientCapabilities()).description('What the client can be asked.'))
  .tool(
    new Tool('slow', s.object({ seconds: s.number() }), ({ seconds }) => {
      const task = seconds > 0 && context.asTask();
      const until = Date.now() + seconds * 1000;
      let reported = 0;
      while (Date.now() < until) {
        if (context.cancelled()) throw ToolError.failed('cancelled');
        const done = Math.floor((seconds * 1000 - (until - Date.now())) / 100);
        if (done > reported) context.progress((reported = done), seconds * 10);
      }
      return `done after ${seconds} s${task ? ' as a task' : ''}`;
    })
      .description('Work `seconds` seconds, as a task when the client can have one.')
      .task('optional'),
  );

// Prompts, completions and resources.
const TONES = ['gentle', 'grumpy', 'terse'];
plugin
  .prompt(
    new Prompt('review').title('Review a file').description('Ask for a review.').argument('file', 'The file to review').optionalArgument('tone', 'How to say it'),
    ({ file, tone }) => ({
      description: `A review of ${file}`,
      messages: [PromptMessage.user(`Review ${file}${tone ? `, ${tone}` : ''}.`), PromptMessage.assistant('Send it over.')],
    }),
  )
  .completion((ref, argument, value) => {
    if (ref.kind === 'prompt' && ref.name === 'review' && argument === 'tone') return Completion.matching(TONES, value);
    if (ref.kind === 'resource-template' && argument === 'id') return Completion.matching(['alpha', 'beta', 'gamma'], value);
    return [];
  })
  .resource({ uri: 'notes://index', name: 'notes', mimeType: 'text/plain' }, (uri) => [EmbeddedResource.text(uri, 'alpha beta gamma', 'text/plain')])
  .resourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', mimeType: 'text/plain' }, (uri, { id }) => [
    EmbeddedResource.text(uri, `the note called ${id}`, 'text/plain'),
  ])
  // A terminal session's output; `shell_open` makes the session announce changes to it.
  .resourceTemplate({ uriTemplate: 'shell://{id}/scrollback', name: 'shell output', mimeType: 'text/plain' }, async (uri, { id }) => {
    const session = await terminal.attach(id);
    return [EmbeddedResource.text(uri, await session.scrollback(100), 'text/plain')];
  });

// One call into each capability.
const decode = (bytes) => new TextDecoder().decode(bytes);
plugin
  .tool(
    new Tool('shell_open', s.object({ host: s.string().optional() }), async ({ host }) => {
      const session = await terminal.open(host ? { tag: 'ssh', val: host } : { tag: 'local' }, 100, 30);
      const { id } = await session.info();
      await session.watch(`shell://${id}/scrollback`);
      return { id };
    }).description('Open a terminal (local, or SSH to `host`) whose output subscribers hear of.'),
  )
  .tool(
    new Tool('shell_run', s.object({ id: s.string(), command: s.string() }), async ({ id, command }) => {
      const session = await terminal.attach(id);
      let offset = (await session.info()).outputBytes;
      // The marker is split in the typed line, whole only in the shell's output.
      await session.write(new TextEncoder().encode(`${command}; echo __do""ne__\n`));
      let out = '';
      for (let round = 0; round < 30 && !out.includes('__done__'); round += 1) {
        const chunk = await session.read(offset, 65536, 1000);
        out += decode(chunk.data);
        offset = chunk.next;
        if (chunk.ended) break;
      }
      return out;
    }).description('Run a command in a terminal and return what it printed.'),
  )
  .tool(
    new Tool('page_title', s.object({ url: s.string() }), async ({ url }) => {
      const page = await openPage();
      try {
        await page.navigate(url, 'load', 30000);
        return (await page.snapshot(false)).meta.title;
      } finally {
        await page.close();
      }
    }).description('Open a page in the browser and return its title.'),
  )
  .tool(
    new Tool('sftp_read', s.object({ host: s.string(), path: s.string() }), async ({ host, path }) =>
      decode(await sftp.read(host, path, 0n, 65536n)),
    ).description('Read a file over SFTP.'),
  )
  .tool(
    new Tool('desktop_size', s.object({ host: s.string() }), async ({ host }) => {
      const desktop = await rdp.open(host, undefined);
      await rdp.close(desktop.id);
      return `${desktop.width}x${desktop.height}`;
    }).description('Connect to a remote desktop, report its size and close it.'),
  );

export const { tools, resources, prompts, completions, groups } = plugin.exports();
