// The build for every import set: no imports, each alone, all of them. Each plugin calls the
// capabilities it lists and nothing else; the bundle must keep exactly their host imports (and
// no other: each would be a component import), the world must import them, and fetch() must be
// on only with "http". Steps 1 and 2 of the build, in a second for every set; the componentize
// step runs for the none and all plugins in tests/e2e/test_sdk_imports.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { INTERFACES, HTTP, prepare } from '../build.mjs';

const SOURCES = {
  'capture/http': ["import { httpGet } from '@warden/plugin-sdk/capture';", "httpGet('http://127.0.0.1:9/')"],
  'capture/page': ["import { capturePage } from '@warden/plugin-sdk/capture';", "capturePage('http://127.0.0.1:9/')"],
  browser: ["import { openPage } from '@warden/plugin-sdk/browser';", "openPage('probe')"],
  terminal: ["import * as terminal from '@warden/plugin-sdk/terminal';", "terminal.open({ tag: 'local' }, 80, 24)"],
  sftp: ["import * as sftp from '@warden/plugin-sdk/sftp';", "sftp.list('nohost', '/')"],
  rdp: ["import * as rdp from '@warden/plugin-sdk/rdp';", "rdp.open('nohost', undefined)"],
  settings: ["import { settings } from '@warden/plugin-sdk';", "settings.get('greeting')"],
  [HTTP]: ['', "fetch('http://127.0.0.1:9/')"],
};
const ALL = Object.keys(SOURCES);
const VARIANTS = { none: [], ...Object.fromEntries(ALL.map((name) => [name, [name]])), all: ALL };
const ALWAYS = ['warden:plugin/context@0.1.0', 'warden:plugin/state@0.1.0'];

async function project(root, imports) {
  const dir = await mkdtemp(path.join(root, 'p-'));
  await mkdir(path.join(dir, 'src'));
  const heads = [...new Set(imports.map((name) => SOURCES[name][0]).filter(Boolean))];
  const calls = imports.map((name) => `  out.push(await ${SOURCES[name][1]});`);
  await writeFile(
    path.join(dir, 'src', 'plugin.js'),
    [
      "import { Plugin, Tool } from '@warden/plugin-sdk';",
      ...heads,
      'async function probe() {',
      '  const out = [];',
      ...calls,
      '  return String(out.length);',
      '}',
      "const plugin = new Plugin().tool(new Tool('ping', () => 'pong')).tool(new Tool('probe', probe));",
      'export const { tools, resources, prompts, completions } = plugin.exports();',
      '',
    ].join('\n'),
  );
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', type: 'module', warden: { imports } }));
  return dir;
}

for (const [variant, imports] of Object.entries(VARIANTS)) {
  test(`imports: ${variant}`, async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'warden-imports-'));
    try {
      const dir = await project(root, imports);
      const work = path.join(root, 'work');
      await mkdir(work);
      const prepared = await prepare(dir, work);
      const wanted = imports.filter((name) => name !== HTTP).map((name) => INTERFACES[name]);
      // The SDK's context and state modules are imported by its core: always there.
      const capabilities = prepared.hostImports.filter((id) => !ALWAYS.includes(id));
      assert.deepEqual(capabilities, [...wanted].sort());
      assert.deepEqual(prepared.project.imports, wanted);
      assert.equal(prepared.disableFeatures.includes('http'), !imports.includes(HTTP));
      assert.ok(prepared.disableFeatures.includes('fetch-event'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
}

test('a capability used but not listed is refused with the line to add', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'warden-imports-'));
  try {
    const dir = await project(root, ['sftp']);
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', type: 'module', warden: { imports: [] } }));
    const work = path.join(root, 'work');
    await mkdir(work);
    await assert.rejects(prepare(dir, work), /the plugin uses warden:sftp\/sftp@0\.1\.0: add "sftp" to "warden\.imports"/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('groups: exported groups add the export to the world; none, no export; declared but not exported, an error', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'warden-imports-'));
  try {
    const head = "import { Plugin, Tool, Group } from '@warden/plugin-sdk';";
    const plugin =
      "const plugin = new Plugin().tool(new Tool('ping', () => 'pong')).group(new Group('net', 'network checks').tools(['ping']));";
    const cases = {
      grouped: [head, plugin, 'export const { tools, resources, prompts, completions, groups } = plugin.exports();'],
      forgotten: [head, plugin, 'export const { tools, resources, prompts, completions } = plugin.exports();'],
    };
    const prepare_ = async (lines) => {
      const dir = await project(root, []);
      await writeFile(path.join(dir, 'src', 'plugin.js'), lines.join('\n'));
      return prepare(dir, await mkdtemp(path.join(root, 'work-')));
    };
    const grouped = await prepare_(cases.grouped);
    assert.equal(grouped.groups, true);
    assert.match(await readFile(path.join(grouped.wit, 'js-plugin.wit'), 'utf8'), /^ {4}export groups;$/m);
    await assert.rejects(prepare_(cases.forgotten), /declares tool groups but does not export them: end it with\n.*completions, groups \} = plugin\.exports\(\);/);

    const plain = await project(root, []);
    const work = await mkdtemp(path.join(root, 'work-'));
    const none = await prepare(plain, work);
    assert.equal(none.groups, false);
    assert.doesNotMatch(await readFile(path.join(none.wit, 'js-plugin.wit'), 'utf8'), /groups/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
