#!/usr/bin/env node
// warden-build: turns a JavaScript/TypeScript plugin project into a Warden component.
//
// 1. bundles the entry (package.json "warden.entry", default src/plugin.js or .ts) and the SDK
//    into one ES module with rolldown; `warden:*` and `wasi:config/*` imports stay host imports;
// 2. writes a world that imports `warden:plugin/context` and `state` plus the interfaces listed in
//    "warden.imports" and exports the four plugin interfaces (and `groups` when the entry
//    exports it: the plugin declares tool groups), so the component imports only what the
//    plugin uses;
// 3. runs componentize-js with the fetch event disabled (a plugin serves no HTTP), and fetch()
//    too unless "warden.imports" lists "http": only then does the component import
//    wasi:http/outgoing-handler, and only then may it make requests (under grants.http).
//
// Usage: warden-build [project-dir] [-o out.wasm]

import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SDK = path.dirname(fileURLToPath(import.meta.url));

/** Interface names a plugin may import, as its package.json "warden.imports" spells them. */
export const INTERFACES = {
  'capture/http': 'warden:capture/http@0.1.0',
  'capture/page': 'warden:capture/page@0.1.0',
  browser: 'warden:browser/browser@0.1.0',
  terminal: 'warden:terminal/terminal@0.1.0',
  sftp: 'warden:sftp/sftp@0.1.0',
  rdp: 'warden:rdp/desktop@0.1.0',
  settings: 'wasi:config/store@0.2.0-rc.1',
};
/** Not a world import: `fetch()`, which componentize-js builds on wasi:http when enabled. */
export const HTTP = 'http';
const ALWAYS = ['warden:plugin/context@0.1.0', 'warden:plugin/state@0.1.0'];
const EXPORTS = ['tools', 'resources', 'prompts', 'completions'];
/** The optional export of a plugin that declares tool groups. */
const GROUPS = 'groups';

class BuildError extends Error {}

/** An import the host provides (kept out of the bundle): Warden's interfaces and the
 * plugin's settings. */
const hostImport = (id) => id.startsWith('warden:') || id.startsWith('wasi:config/');

function witDir() {
  // A published package carries a copy of wit/; in the repository it is two levels up.
  for (const dir of [path.join(SDK, 'wit'), path.join(SDK, '..', '..', 'wit')]) {
    if (existsSync(path.join(dir, 'plugin.wit'))) return dir;
  }
  throw new BuildError(`no Warden WIT found beside the SDK (${SDK}/wit or ${SDK}/../../wit)`);
}

/** The WIT text of a world importing `imports` (values of INTERFACES), exporting `groups` too
 * when `groups` is true. */
export function worldWit(imports, { groups = false } = {}) {
  const lines = ['package warden:plugin@0.1.0;', '', 'world js-plugin {', '    import context;', '    import state;'];
  for (const name of imports) lines.push(`    import ${name};`);
  for (const name of groups ? [...EXPORTS, GROUPS] : EXPORTS) lines.push(`    export ${name};`);
  lines.push('}', '');
  return lines.join('\n');
}

async function readProject(dir) {
  let pkg;
  try {
    pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
  } catch (e) {
    throw new BuildError(`cannot read ${path.join(dir, 'package.json')}: ${e.message}`);
  }
  const warden = pkg.warden ?? {};
  const declared = warden.imports ?? [];
  if (!Array.isArray(declared)) throw new BuildError('package.json "warden.imports" must be a list such as ["capture/http"]');
  const imports = [];
  for (const name of declared) {
    // `capture` is short for both capture interfaces.
    if (name === 'capture') imports.push(INTERFACES['capture/http'], INTERFACES['capture/page']);
    else if (INTERFACES[name]) imports.push(INTERFACES[name]);
    else if (name !== HTTP) {
      const known = [...Object.keys(INTERFACES), HTTP].join(', ');
      throw new BuildError(`package.json "warden.imports": unknown interface ${JSON.stringify(name)}; known: ${known}`);
    }
  }
  let entry = warden.entry;
  if (!entry) entry = ['src/plugin.ts', 'src/plugin.js'].find((f) => existsSync(path.join(dir, f))) ?? 'src/plugin.js';
  const output = warden.output ?? `dist/${(pkg.name ?? 'plugin').replace(/^@.*\//, '').replaceAll('-', '_')}.wasm`;
  return {
    name: pkg.name,
    entry: path.resolve(dir, entry),
    output: path.resolve(dir, output),
    imports: [...new Set(imports)],
    http: declared.includes(HTTP),
    declared,
  };
}

/** The file a package.json `exports` (or `main`) gives for `subpath` under ESM conditions. */
function exportTarget(pkg, subpath) {
  const pick = (value) => {
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object') {
      for (const condition of ['import', 'node', 'default']) {
        const found = pick(value[condition]);
        if (found) return found;
      }
    }
    return undefined;
  };
  const { exports } = pkg;
  if (exports === undefined) return subpath === '.' ? pkg.main ?? 'index.js' : subpath;
  if (typeof exports === 'string' || !Object.keys(exports).some((k) => k.startsWith('.'))) {
    return subpath === '.' ? pick(exports) : undefined;
  }
  if (exports[subpath] !== undefined) return pick(exports[subpath]);
  for (const [key, value] of Object.entries(exports)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const [before, after] = [key.slice(0, star), key.slice(star + 1)];
    if (subpath.startsWith(before) && subpath.endsWith(after) && subpath.length >= key.length - 1) {
      return pick(value)?.replace('*', subpath.slice(before.length, subpath.length - after.length));
    }
  }
  return undefined;
}

/**
 * A toolchain package: from the project's node_modules (the scaffold pins the toolchain in its
 * devDependencies), else from the SDK's own (`npm ci` in the SDK, as the repository does).
 */
async function tool(name, project, starts = [project, SDK]) {
  const [scope, bare, ...rest] = name.split('/');
  const pkgName = scope.startsWith('@') ? `${scope}/${bare}` : scope;
  const subpath = scope.startsWith('@') ? rest : [bare, ...rest].filter(Boolean);
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const root = path.join(dir, 'node_modules', pkgName);
      if (existsSync(path.join(root, 'package.json'))) {
        const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
        const target = exportTarget(pkg, subpath.length ? `./${subpath.join('/')}` : '.');
        if (target) return { root, module: await import(pathToFileURL(path.join(root, target)).href) };
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new BuildError(`${pkgName} is not installed: run \`npm install\` in the project (or \`npm ci\` in ${SDK})`);
}

async function bundle(entry, outFile, project) {
  const { rolldown } = (await tool('rolldown', project)).module;
  const build = await rolldown({
    input: entry,
    platform: 'neutral',
    // The SDK that builds is the SDK the plugin gets, wherever the project was installed from.
    resolve: { alias: { '@warden/plugin-sdk': SDK } },
    external: hostImport,
    // Unused host imports must not survive into the bundle: each would be a component import.
    // The SDK's modules and host imports have no side effects, so unused ones drop out.
    treeshake: { moduleSideEffects: (id, external) => !external && !id.startsWith(SDK + path.sep) },
    logLevel: 'warn',
  });
  const { output } = await build.write({ file: outFile, format: 'esm' });
  await build.close();
  return output[0];
}

/**
 * Steps 1 and 2 in `work`: the bundle (`work/plugin.js`, its host imports checked against
 * "warden.imports") and the WIT with the plugin's world (`work/wit`). Also what the tests check
 * for every import set without the cost of a componentize run.
 */
export async function prepare(dir, work) {
  const project = await readProject(dir);
  if (!existsSync(project.entry)) throw new BuildError(`entry ${project.entry} does not exist; set package.json "warden.entry"`);
  const chunk = await bundle(project.entry, path.join(work, 'plugin.js'), dir);
  const missing = EXPORTS.filter((name) => !chunk.exports.includes(name));
  if (missing.length > 0) {
    throw new BuildError(
      `${path.relative(dir, project.entry)} does not export ${missing.join(', ')}: end it with\n` +
        '  export const { tools, resources, prompts, completions } = plugin.exports();',
    );
  }
  // A plugin that declares groups uses the SDK's Group class; without the `groups` export
  // the host would never see them.
  const groups = chunk.exports.includes(GROUPS);
  const groupModule = chunk.modules[path.join(SDK, 'group.js')];
  if (!groups && groupModule?.renderedExports.includes('Group')) {
    throw new BuildError(
      `${path.relative(dir, project.entry)} declares tool groups but does not export them: end it with\n` +
        '  export const { tools, resources, prompts, completions, groups } = plugin.exports();',
    );
  }
  const allowed = new Set([...ALWAYS, ...project.imports]);
  for (const id of chunk.imports) {
    if (!hostImport(id) || allowed.has(id)) continue;
    const short = Object.entries(INTERFACES).find(([, full]) => full === id)?.[0] ?? id;
    throw new BuildError(`the plugin uses ${id}: add "${short}" to "warden.imports" in package.json`);
  }
  const wit = path.join(work, 'wit');
  await cp(witDir(), wit, { recursive: true });
  await writeFile(path.join(wit, 'js-plugin.wit'), worldWit(project.imports, { groups }));
  return {
    project,
    groups,
    hostImports: chunk.imports.filter(hostImport).sort(),
    wit,
    // fetch() is componentize-js's `http` feature; the fetch event (serving HTTP) is never on.
    disableFeatures: project.http ? ['fetch-event'] : ['http', 'fetch-event'],
  };
}

export async function build(dir, { output } = {}) {
  const started = Date.now();
  const work = await mkdtemp(path.join(tmpdir(), 'warden-build-'));
  try {
    const { project, wit, disableFeatures } = await prepare(dir, work);
    if (output) project.output = path.resolve(output);

    // componentize-js reads the WIT through preview2-shim's WASI filesystem, which (since
    // 0.26) preopens nothing: without this every path fails with "No such file or directory".
    // The shim must be the instance componentize-js resolves, so the search starts there.
    const componentizeJs = await tool('@bytecodealliance/componentize-js', dir);
    const shim = await tool('@bytecodealliance/preview2-shim/filesystem', dir, [componentizeJs.root]);
    shim.module._setPreopens({ '/': '/' });
    const { componentize } = componentizeJs.module;
    const { component } = await componentize({
      sourcePath: path.join(work, 'plugin.js'),
      witPath: wit,
      worldName: 'warden:plugin/js-plugin',
      disableFeatures,
    });
    await mkdir(path.dirname(project.output), { recursive: true });
    await writeFile(project.output, component);
    const size = (await stat(project.output)).size;
    return { ...project, size, ms: Date.now() - started };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function main(argv) {
  let dir = '.';
  let output;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '-o' || argv[i] === '--output') output = argv[++i];
    else if (argv[i] === '-h' || argv[i] === '--help') {
      console.log('usage: warden-build [project-dir] [-o out.wasm]');
      return;
    } else dir = argv[i];
  }
  try {
    const done = await build(path.resolve(dir), { output });
    const mib = (done.size / 1048576).toFixed(1);
    console.log(`built ${path.relative(process.cwd(), done.output) || done.output} (${mib} MiB) in ${(done.ms / 1000).toFixed(1)} s; imports: ${done.declared.length ? done.declared.join(', ') : 'none'}`);
  } catch (e) {
    console.error(`warden-build: ${e instanceof BuildError ? e.message : e.stack ?? e}`);
    process.exitCode = 1;
  }
}

// Run as a program (also through node_modules/.bin's symlink), not when imported.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  await main(process.argv.slice(2));
}
