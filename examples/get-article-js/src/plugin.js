// get_article: a page captured in the host's capture profile (the user's own Chromium
// profile, logged in where the user is), returned as the article's clean text. The host
// opens only origins the manifest grants (`grants.capture.origins`).

import { Plugin, Tool, ToolOutput, s, context } from '@warden/plugin-sdk';
import { capturePage } from '@warden/plugin-sdk/capture';
import { article, render } from './article.js';

const getArticle = new Tool(
  'get_article',
  s.object({
    url: s.string().url().describe('The article\'s URL; its origin must be granted in capture.origins.'),
    timeout_ms: s.integer().min(1000).max(120000).default(30000).describe('Give up after this many milliseconds.'),
  }),
  async ({ url, timeout_ms }) => {
    context.progress(0, 2, 'capturing the page');
    const page = await capturePage(url, { format: 'markdown', waitUntil: 'load', timeoutMs: timeout_ms });
    context.progress(1, 2, 'extracting the article');
    const doc = article(page.content, page.title);
    const result = { title: doc.title, url: page.finalUrl, paragraphs: doc.paragraphs, sections: doc.sections, words: doc.words };
    if (doc.paragraphs.length === 0) context.warning(`no article text found at ${page.finalUrl}`);
    return ToolOutput.text(render(doc) || `(no article text found at ${page.finalUrl})`).withStructured(result);
  },
)
  .title('Get article')
  .description('Open a web page in the capture profile (logged in where the user is) and return its article as clean text: title, section headings and paragraphs, without navigation, sidebars or ads.')
  .output(
    s.object({
      title: s.string(),
      url: s.string(),
      paragraphs: s.array(s.string()),
      sections: s.array(s.object({ heading: s.string().optional(), paragraphs: s.array(s.string()) })),
      words: s.integer(),
    }),
  )
  .readOnly()
  .openWorld();

const plugin = new Plugin().tool(getArticle);

export const { tools, resources, prompts, completions } = plugin.exports();
