// Write Warden tool plugins in JavaScript: a tool is a function plus an argument schema;
// `plugin.exports()` gives the component's four exported interfaces.

import { s, Schema, ObjectSchema } from './schema.js';
import { ToolError, CapabilityError, toToolError } from './errors.js';
import { ToolOutput, Content, EmbeddedResource, intoWit } from './output.js';
import * as context from './context.js';
import * as state from './state.js';

export { s, Schema, ToolError, CapabilityError, ToolOutput, Content, EmbeddedResource, context, state };

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

/** A plugin: its tools and resources. */
export class Plugin {
  constructor() {
    this._tools = new Map();
    this._resources = [];
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

  /** Runs tool `name`; resolves to a ToolOutput-like value or rejects with a ToolError. */
  async call(name, argumentsJson) {
    const tool = this._tools.get(name);
    if (!tool) throw ToolError.notFound(`no tool named \`${name}\``);
    return tool.call(argumentsJson);
  }

  /** The component's exports: `export const { tools, resources, prompts, completions } = plugin.exports();` */
  exports() {
    const plugin = this;
    // An error result is thrown as the WIT variant itself: anything else (an Error, a
    // string) would make the binding trap instead of answering.
    const fail = (thrown) => {
      const e = toToolError(thrown);
      throw { tag: e.kind, val: e.message };
    };
    const finish = (run) => {
      let value;
      try {
        value = run();
      } catch (thrown) {
        fail(thrown);
      }
      // `catch` after `then`: a result that cannot be converted is a tool error too.
      if (value && typeof value.then === 'function') return value.then(intoWit).catch(fail);
      try {
        return intoWit(value);
      } catch (thrown) {
        return fail(thrown);
      }
    };
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
        listResources: () =>
          plugin._resources.map(({ info }) => ({
            uri: info.uri,
            name: info.name,
            description: info.description,
            mimeType: info.mimeType,
          })),
        listTemplates: () => [],
        readResource: (uri) => {
          const entry = plugin._resources.find(({ info }) => info.uri === uri);
          if (!entry) fail(ToolError.notFound(`no resource ${uri}`));
          try {
            return entry.read(uri);
          } catch (thrown) {
            return fail(thrown);
          }
        },
      },
      prompts: {
        listPrompts: () => [],
        getPrompt: (name) => fail(ToolError.notFound(`no prompt named \`${name}\``)),
      },
      completions: {
        complete: () => ({ values: [], total: undefined, hasMore: false }),
      },
    };
  }
}
