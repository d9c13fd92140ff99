// Services of the call in progress (always granted): progress, logging, cancellation, tasks,
// and asking the client (its user through elicitation, its model through sampling).

import * as raw from 'warden:plugin/context@0.1.0';
import { ToolError } from './errors.js';

/** Reports progress; sent to the client when it asked for progress. */
export function progress(done, total, message) {
  raw.progress(done, total ?? undefined, message ?? undefined);
}

/** Writes a log line (`debug`, `info`, `warning`, `error`) to the host log and the client. */
export function log(level, message) {
  raw.log(level, String(message));
}

export const debug = (message) => log('debug', message);
export const info = (message) => log('info', message);
export const warning = (message) => log('warning', message);
export const error = (message) => log('error', message);

/** An opaque id of this call's conversation (its MCP session, or its client on the stateless
 * wire; empty for stdio). `state` is already scoped by it. */
export function conversation() {
  return raw.conversation();
}

/** True once the client has cancelled this call: return early. */
export function cancelled() {
  return raw.cancelled();
}

/** Goes on as an MCP task: the client gets a task handle now and polls for the result. True
 * if the call is a task (now or already); false when it cannot be one (the tool's `task()` is
 * `never`, the client did not declare tasks, or the wire has none), and the call goes on as
 * before. Ask what must be asked first: on 2026-07-28 asks before this point are rounds of
 * the request, replayed from the start; asks after it wait for the client's `tasks/update`. */
export function asTask() {
  return raw.asTask();
}

/** What the client of this call can be asked (the capabilities it declared):
 * `{ elicitation, elicitationUrl, sampling, roots }`. Ask only what it can answer, or get an
 * AskError of kind `unsupported`. */
export function clientCapabilities() {
  const caps = raw.capabilities();
  return { elicitation: !!caps.elicitation, elicitationUrl: !!caps.elicitationUrl, sampling: !!caps.sampling, roots: !!caps.roots };
}

/** Why a request to the client (`ask`, `elicit`, `sample`, `listRoots`) failed. Thrown from a
 * tool it becomes a `failed` tool error with the same message. */
export class AskError extends Error {
  constructor(kind, message) {
    super(String(message));
    this.name = 'AskError';
    /** `unsupported` (the client cannot do this), `limit-reached` or `failed`. */
    this.kind = kind;
  }
  toString() {
    const what = { unsupported: 'the client cannot do this', 'limit-reached': 'limit reached', failed: 'failed' };
    return `${what[this.kind] ?? this.kind}: ${this.message}`;
  }
  /** A `failed` tool error that keeps the message (as in the Rust SDK). */
  toToolError() { return ToolError.failed(this.toString()); }
}

/** One question for the client, for `ask`. */
export const Question = {
  /** Ask the user: a message and a form, a JSON Schema object of primitive properties
   * (a plain object or `s.object({...})`). */
  elicit: (message, schema) => ({ kind: 'elicit', message: String(message), schema }),
  /** Send the user to a page (URL-mode elicitation): `https://` (or `http://` on a loopback
   * host), shown to the user, so never with a secret in it. */
  elicitUrl: (message, url) => ({ kind: 'elicit-url', message: String(message), url: String(url) }),
  /** Ask the client's model: `sampling/createMessage` params (`messages`, `maxTokens`, ...). */
  sample: (params) => ({ kind: 'sample', params }),
  /** Ask for the client's roots. */
  listRoots: () => ({ kind: 'list-roots' }),
};

function request(key, question) {
  switch (question?.kind) {
    case 'elicit':
      return { tag: 'elicit', val: { message: question.message, requestedSchema: JSON.stringify(question.schema) } };
    case 'elicit-url':
      return { tag: 'elicit-url', val: { message: question.message, url: question.url } };
    case 'sample':
      return { tag: 'sample', val: JSON.stringify(question.params) };
    case 'list-roots':
      return { tag: 'list-roots' };
    default:
      throw new TypeError(`question \`${key}\`: make it with Question.elicit, elicitUrl, sample or listRoots`);
  }
}

function json(text, what) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AskError('failed', `the ${what} is not JSON: ${e.message}`);
  }
}

function answer(wit) {
  switch (wit.tag) {
    case 'elicit': {
      const { action, content } = wit.val;
      // URL mode accepts without content: the user agreed to open the page.
      return action === 'accept' ? { action, content: content === undefined ? null : json(content, 'form') } : { action };
    }
    case 'sample':
      return json(wit.val, 'sampling result');
    case 'roots':
      return json(wit.val, 'list of roots');
    default:
      throw new AskError('failed', `the client gave an answer of an unknown kind \`${wit.tag}\``);
  }
}

/**
 * Asks the client several questions at once: `{ key: Question.elicit(...), ... }`; resolves to
 * the answers under the same keys: `{ action, content }` for a form or a page, the sampling
 * result for `sample`, the list of `{ uri, name }` for `listRoots`. Waiting does not count
 * against the call's time limit.
 *
 * Ask first, act after. On the stateless 2026-07-28 wire the client answers between two of
 * its requests: this run of the call fails at the ask and is discarded, and the client's retry
 * runs the tool again from the start, where the same ask resolves at once. So what the tool
 * does before an ask may run twice, and it must ask the same questions in the same order.
 */
export async function ask(questions) {
  const keys = Object.keys(questions);
  const requests = keys.map((key) => [key, request(key, questions[key])]);
  let answers;
  try {
    answers = raw.ask(requests);
  } catch (thrown) {
    const payload = thrown && typeof thrown === 'object' ? thrown.payload : undefined;
    if (payload && typeof payload.tag === 'string') throw new AskError(payload.tag, payload.val ?? '');
    throw thrown;
  }
  const out = {};
  for (const [key, wit] of answers) out[key] = answer(wit);
  return out;
}

async function askOne(question) {
  const answers = await ask({ q: question });
  if (!('q' in answers)) throw new AskError('failed', 'the client gave no answer');
  return answers.q;
}

/** Asks the user through the client (form mode); resolves to `{ action, content? }` where
 * `action` is `accept`, `decline` or `cancel` and `content` the form's values on accept. */
export const elicit = (message, schema) => askOne(Question.elicit(message, schema));

/** Sends the user to a page (URL mode), for what must not pass through the client: a third
 * party's sign-in, a payment. `accept` means the user agreed to open it, not that they
 * finished there: check that on your side. */
export const elicitUrl = (message, url) => askOne(Question.elicitUrl(message, url));

/** Asks the client's model (`sampling/createMessage` params); resolves to its result
 * (`role`, `content`, `model`, `stopReason`). */
export const sample = (params) => askOne(Question.sample(params));

/** Asks the client's model one question; resolves to the text of its answer. */
export async function sampleText(prompt, maxTokens) {
  const result = await sample({
    messages: [{ role: 'user', content: { type: 'text', text: String(prompt) } }],
    maxTokens,
  });
  return typeof result?.content?.text === 'string' ? result.content.text : '';
}

/** The client's roots: `[{ uri, name? }]`. */
export const listRoots = () => askOne(Question.listRoots());
