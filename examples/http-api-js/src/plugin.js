// `http-api-js`: Warden tool plugin. `create_issue` POSTs JSON to an issue tracker's API with
// fetch() and returns the issue it created. Build: `npm run build`, then `warden check -m warden.toml`.
//
// The plugin holds no token: the manifest binds one to the API's origin ([credentials.api])
// and the host adds it to the request after the plugin hands the request over, so neither
// this code nor a prompt injection can read or leak it. Where the API lives comes from the
// manifest's [plugin.settings] api_base.

import { Plugin, Tool, ToolError, s, settings } from '@warden/plugin-sdk';

const createIssue = new Tool(
  'create_issue',
  s.object({
    title: s.string().describe('One-line summary.'),
    body: s.string().describe('What happened, in Markdown.').optional(),
  }),
  async ({ title, body = '' }) => {
    if (title.trim() === '') throw ToolError.invalidArguments('`title` must not be empty');
    const base = settings.get('api_base');
    if (!base) throw ToolError.failed('set api_base under [plugin.settings] in the manifest');
    // Only to origins and methods that grants.http allows; the host refuses anything else.
    const response = await fetch(`${base.replace(/\/+$/, '')}/issues`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ title, body }),
    });
    if (!response.ok) {
      throw ToolError.failed(`the tracker answered HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`);
    }
    return await response.json();
  },
)
  .title('Create issue')
  .description('File an issue in the tracker and return it')
  .openWorld();

const plugin = new Plugin().tool(createIssue);

export const { tools, resources, prompts, completions } = plugin.exports();
