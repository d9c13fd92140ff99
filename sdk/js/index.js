// Write Warden tool plugins in JavaScript: a tool is a function plus an argument schema;
// `plugin.exports()` gives the component's exported interfaces (four, and `groups` when the
// plugin declares tool groups).

import { s, Schema, ObjectSchema } from './schema.js';
import { ToolError, CapabilityError, toToolError } from './errors.js';
import { ToolOutput, Content, EmbeddedResource, intoWit } from './output.js';
import * as context from './context.js';
import * as state from './state.js';
import * as settings from './settings.js';
import { Prompt, PromptMessage, Completion, promptIntoWit, completionIntoWit } from './prompt.js';
import { matchTemplate } from './template.js';
import { Group, checkGroup, resolveGroups } from './group.js';

const { AskError, Question } = context;

export {
  s, Schema, ToolError, CapabilityError, AskError, Question, ToolOutput, Content, EmbeddedResource,
  Prompt, PromptMessage, Completion, matchTemplate, context, state, settings, Group,
};

const NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/** One tool: a name, an argument schema (`s.object({...})`) and a function of the arguments. */
export class Tool {
  constructor(name, args, fn) {
    if (!NAME.test(name)) throw new TypeError(`tool name \`${name}\` is invalid: use [a-zA-Z0-9_.-]{1,64}`);
    if (typeof args === 'function' && fn === undefined) [args, fn] = [s.object({}), args];
    if (!(args instanceof ObjectSchema)) throw new TypeError(`tool \`${name}\`: the arguments must be s.object({...})`);
    if (typeof fn !== 'function') throw new TypeError(`tool \`${name}\`: give a function of the arguments`);
    this.name = name;
    this.args = args;
    this.fn = fn;
    this._title = undefined;
    this._description = '';
    this._output = undefined;
    this._annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
    this._task = 'never';
  }
  title(text) { this._title = text; return this; }
  description(text) { this._description = text; return this; }
  /** The schema of the structured result (`s.object({...})`): returned objects become `structuredContent`. */
  output(schema) { this._output = schema; return this; }
  readOnly() { this._annotations.readOnly = true; return this; }
  destructive() { this._annotations.destructive = true; return this; }
  idempotent() { this._annotations.idempotent = true; return this; }
  openWorld() { this._annotations.openWorld = true; return this; }
  /** `never` (default), `optional` or `required`: whether a call may run as an MCP task. */
  task(support) { this._task = support; return this; }

  info() {
    return {
      name: this.name,
      title: this._title,
      description: this._description,
      inputSchema: JSON.stringify(this.args.toJSON()),
      outputSchema: this._output ? JSON.stringify(this._output.toJSON()) : undefined,
      annotations: { ...this._annotations },
      task: this._task,
    };
  }

  /** Parses the JSON arguments, validates them, and runs the function (for tests, too). */
  call(argumentsJson) {
    let parsed;
    try {
      parsed = JSON.parse(argumentsJson === '' ? '{}' : argumentsJson);
    } catch (e) {
      throw ToolError.invalidArguments(`the arguments are not JSON: ${e.message}`);
    }
    return this.fn(this.args.parse(parsed));
  }
}

const resourceInfo = (info) => ({ uri: info.uri, name: info.name, description: info.description, mimeType: info.mimeType });

/** A plugin: its tools, resources, resource templates, prompts and completions. */
export class Plugin {
  constructor() {
    this._tools = new Map();
    this._resources = [];
    this._templates = [];
    this._prompts = new Map();
    this._completer = undefined;
    this._groups = [];
  }
  tool(tool) {
    if (this._tools.has(tool.name)) throw new TypeError(`tool \`${tool.name}\` is declared twice`);
    this._tools.set(tool.name, tool);
    return this;
  }
  /** A fixed resource `{ uri, name, description?, mimeType? }` and its reader `(uri) => [EmbeddedResource]`. */
  resource(info, read) {
    this._resources.push({ info, read });
    return this;
  }
  /** A family of resources `{ uriTemplate, name, description?, mimeType? }` (`sessions://{id}/info`;
   * `{+path}` may span `/`) and its reader `(uri, vars) => [EmbeddedResource]`. */
  resourceTemplate(info, read) {
    this._templates.push({ info, read });
    return this;
  }
  /** A prompt and its function `(args) => [PromptMessage...]` (or `{ description, messages }`);
   * required arguments are checked present before it runs. */
  prompt(prompt, fill) {
    if (!(prompt instanceof Prompt)) throw new TypeError('plugin.prompt: give a new Prompt(name)');
    if (this._prompts.has(prompt.name)) throw new TypeError(`prompt \`${prompt.name}\` is declared twice`);
    this._prompts.set(prompt.name, { prompt, fill });
    return this;
  }
  /** What completes prompt arguments and template variables: `(ref, argument, value, context)`
   * where `ref` is `{ kind: 'prompt', name }` or `{ kind: 'resource-template', uriTemplate }`
   * and `context` the arguments already chosen; returns `Completion.matching(...)` or a list.
   * Without it every completion is empty. */
  completion(complete) {
    this._completer = complete;
    return this;
  }

  /** Adds a group of tools (added before or after it): the manifest lists a plugin's tools by
   * group (`tools = { groups = [...] }`). A tool in no group is in `default`; a group given no
   * tools takes every tool that no other group names. Export `groups` with the others. */
  group(group) {
    checkGroup(group, this._groups);
    this._groups.push(group);
    return this;
  }

  /** The groups as the host gets them (`{ name, summary, tools, needs }`); throws when a group
   * names a tool the plugin does not have, or two groups name the same tool. */
  groups() {
    return resolveGroups(this._groups, [...this._tools.keys()]);
  }

  /** Runs tool `name`; resolves to a ToolOutput-like value or rejects with a ToolError. */
  async call(name, argumentsJson) {
    const tool = this._tools.get(name);
    if (!tool) throw ToolError.notFound(`no tool named \`${name}\``);
    return tool.call(argumentsJson);
  }

  /** Reads `uri`: the fixed resource of that URI, else the first template that matches. */
  async readResource(uri) {
    const fixed = this._resources.find(({ info }) => info.uri === uri);
    if (fixed) return fixed.read(uri);
    for (const { info, read } of this._templates) {
      const vars = matchTemplate(info.uriTemplate, uri);
      if (vars) return read(uri, vars);
    }
    throw ToolError.notFound(`this plugin has no resource \`${uri}\``);
  }

  /** Fills prompt `name` with `args` (an object), as the host's `prompts/get` does. */
  async getPrompt(name, args = {}) {
    const entry = this._prompts.get(name);
    if (!entry) throw ToolError.notFound(`this plugin has no prompt \`${name}\``);
    entry.prompt.check(args);
    return promptIntoWit(await entry.fill(args));
  }

  /** Completes `argument` of `ref` from `value`, as the host's `completion/complete` does. */
  async complete(ref, argument, value, context = {}) {
    if (!this._completer) return { values: [], total: undefined, hasMore: false };
    return completionIntoWit(await this._completer(ref, argument, value, context));
  }

  /** The component's exports: `export const { tools, resources, prompts, completions } = plugin.exports();`,
   * and `groups` beside them when the plugin declares groups. */
  exports() {
    const plugin = this;
    // Checked now, while the build pre-initializes the module: a wrong group fails the build.
    const groups = this.groups();
    // An error result is thrown as the WIT variant itself: anything else (an Error, a
    // string) would make the binding trap instead of answering.
    const fail = (thrown) => {
      const e = toToolError(thrown);
      throw { tag: e.kind, val: e.message };
    };
    const finish = (run, convert = intoWit) => {
      let value;
      try {
        value = run();
      } catch (thrown) {
        fail(thrown);
      }
      // `catch` after `then`: a result that cannot be converted is a tool error too.
      if (value && typeof value.then === 'function') return value.then(convert).catch(fail);
      try {
        return convert(value);
      } catch (thrown) {
        return fail(thrown);
      }
    };
    const same = (value) => value;
    return {
      tools: {
        listTools: () => [...plugin._tools.values()].map((t) => t.info()),
        callTool: (name, args) =>
          finish(() => {
            const tool = plugin._tools.get(name);
            if (!tool) throw ToolError.notFound(`no tool named \`${name}\``);
            return tool.call(args);
          }),
      },
      resources: {
        listResources: () => plugin._resources.map(({ info }) => resourceInfo(info)),
        listTemplates: () =>
          plugin._templates.map(({ info }) => ({
            uriTemplate: info.uriTemplate,
            name: info.name,
            description: info.description,
            mimeType: info.mimeType,
          })),
        readResource: (uri) => finish(() => plugin.readResource(uri), same),
      },
      prompts: {
        listPrompts: () => [...plugin._prompts.values()].map(({ prompt }) => prompt.info()),
        getPrompt: (name, args) => finish(() => plugin.getPrompt(name, Object.fromEntries(args)), same),
      },
      completions: {
        complete: (target, argument, value, context) =>
          finish(() => {
            const ref =
              target.tag === 'prompt' ? { kind: 'prompt', name: target.val } : { kind: 'resource-template', uriTemplate: target.val };
            return plugin.complete(ref, argument, value, Object.fromEntries(context));
          }, same),
      },
      groups: {
        groups: () => groups.map((g) => ({ ...g, tools: [...g.tools], needs: [...g.needs] })),
      },
    };
  }
}
