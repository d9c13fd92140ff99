// Prompts (MCP `prompts/list`, `prompts/get`) and completions (MCP `completion/complete`).

import { ToolError } from './errors.js';
import { Content } from './output.js';

const NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/** A prompt: a template of messages, filled in with its arguments by a function. */
export class Prompt {
  constructor(name) {
    if (!NAME.test(name)) throw new TypeError(`prompt name \`${name}\` is invalid: use [a-zA-Z0-9_.-]{1,64}`);
    this.name = name;
    this._title = undefined;
    this._description = undefined;
    this.arguments = [];
  }
  title(text) { this._title = text; return this; }
  description(text) { this._description = text; return this; }
  /** An argument the client must give (`getPrompt` is refused without it). */
  argument(name, description) { return this._add(name, description, true); }
  /** An argument the client may leave out. */
  optionalArgument(name, description) { return this._add(name, description, false); }
  _add(name, description, required) {
    if (this.arguments.some((a) => a.name === name)) throw new TypeError(`prompt \`${this.name}\`: argument \`${name}\` is declared twice`);
    this.arguments.push({ name, description, required });
    return this;
  }

  info() {
    return {
      name: this.name,
      title: this._title,
      description: this._description,
      arguments: this.arguments.map((a) => ({ ...a })),
    };
  }

  /** A ToolError naming the first required argument that is missing, if any. */
  check(args) {
    const missing = this.arguments.find((a) => a.required && !(a.name in args));
    if (missing) throw ToolError.invalidArguments(`prompt \`${this.name}\` needs the argument \`${missing.name}\``);
  }
}

const block = (content) => (typeof content === 'string' ? Content.text(content) : content);

/** One message of a filled-in prompt: a string or a content block (`Content.image(...)`). */
export const PromptMessage = {
  user: (content) => ({ role: 'user', content: block(content) }),
  assistant: (content) => ({ role: 'assistant', content: block(content) }),
};

/** The WIT `prompt` for what a prompt function returned: `{ description?, messages }` or a
 * list of messages. */
export function promptIntoWit(value) {
  const { description, messages } = Array.isArray(value) ? { messages: value } : value ?? {};
  if (!Array.isArray(messages)) throw ToolError.failed('a prompt function must return messages (PromptMessage.user(...), ...)');
  return {
    description: description ?? undefined,
    messages: messages.map((m) => {
      if (m?.role !== 'user' && m?.role !== 'assistant') throw ToolError.failed('a prompt message needs the role `user` or `assistant`');
      return { role: m.role, content: block(m.content) };
    }),
  };
}

/** The most values one completion may carry (MCP). */
export const MAX_VALUES = 100;

/** Values a client may offer for an argument. */
export const Completion = {
  MAX_VALUES,
  /** The `candidates` that start with `prefix`, at most 100 of them. */
  matching(candidates, prefix) {
    const all = [...candidates].map(String).filter((c) => c.startsWith(prefix));
    return { values: all.slice(0, MAX_VALUES), total: all.length, hasMore: all.length > MAX_VALUES };
  },
};

/** The WIT `completion` for what a completion function returned: `{ values, total?, hasMore? }`
 * or a list of values; kept to 100 values. */
export function completionIntoWit(value) {
  const { values, total, hasMore } = Array.isArray(value) ? { values: value } : value ?? {};
  if (!Array.isArray(values)) throw ToolError.failed('a completion function must return { values: [...] } or a list of values');
  return {
    values: values.slice(0, MAX_VALUES).map(String),
    total: total ?? undefined,
    hasMore: Boolean(hasMore) || values.length > MAX_VALUES,
  };
}
