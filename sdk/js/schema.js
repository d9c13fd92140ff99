// Argument schemas: one builder yields both the JSON Schema (draft 2020-12) that `tools/list`
// shows and the validator that runs before the tool function, so the two cannot disagree.

import { ToolError } from './errors.js';

class Schema {
  constructor(json, check) {
    this._json = json;
    this._check = check;
    this._optional = false;
    this._default = undefined;
  }

  _copy(patch) {
    const next = Object.create(Object.getPrototypeOf(this));
    Object.assign(next, this, { _json: { ...this._json, ...patch } });
    return next;
  }

  /** Adds a description (shown to the agent in the input schema). */
  describe(text) {
    return this._copy({ description: text });
  }

  /** The property may be left out (`undefined` in the arguments). */
  optional() {
    const next = this._copy({});
    next._optional = true;
    return next;
  }

  /** The property may be left out; the function then gets `value`. */
  default(value) {
    const next = this._copy({ default: value });
    next._optional = true;
    next._default = value;
    return next;
  }

  /** The JSON Schema as a plain object. */
  toJSON() {
    return this._json;
  }

  /** Validates `value` and returns it (objects get their defaults); throws invalid-arguments. */
  parse(value, path = 'arguments') {
    return this._check(value, path, this._json);
  }
}

function fail(path, message) {
  throw ToolError.invalidArguments(`\`${path}\` ${message}`);
}

function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

class StringSchema extends Schema {
  constructor() {
    super({ type: 'string' }, (value, path, json) => {
      if (typeof value !== 'string') fail(path, `must be a string, not ${typeName(value)}`);
      const { minLength, maxLength, pattern, format } = json;
      if (minLength !== undefined && [...value].length < minLength) {
        fail(path, minLength === 1 ? 'must not be empty' : `must have at least ${minLength} characters`);
      }
      if (maxLength !== undefined && [...value].length > maxLength) {
        fail(path, `must have at most ${maxLength} characters`);
      }
      if (pattern !== undefined && !new RegExp(pattern, 'u').test(value)) {
        fail(path, `must match the pattern ${pattern}`);
      }
      if (format === 'uri' && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value)) {
        fail(path, 'must be an absolute URL such as "https://www.example.com/"');
      }
      return value;
    });
  }
  /** At least `n` characters (`min(1)`: "must not be empty"). */
  min(n) { return this._copy({ minLength: n }); }
  max(n) { return this._copy({ maxLength: n }); }
  pattern(regex) { return this._copy({ pattern: regex instanceof RegExp ? regex.source : String(regex) }); }
  /** An absolute URL (`format: uri`). */
  url() { return this._copy({ format: 'uri' }); }
}

class NumberSchema extends Schema {
  constructor(integer) {
    super({ type: integer ? 'integer' : 'number' }, (value, path, json) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        fail(path, `must be a number, not ${typeName(value)}`);
      }
      if (integer && !Number.isInteger(value)) fail(path, 'must be a whole number');
      const { minimum, maximum } = json;
      if (minimum !== undefined && value < minimum) fail(path, `must be at least ${minimum}`);
      if (maximum !== undefined && value > maximum) fail(path, `must be at most ${maximum}`);
      return value;
    });
  }
  min(n) { return this._copy({ minimum: n }); }
  max(n) { return this._copy({ maximum: n }); }
}

class BooleanSchema extends Schema {
  constructor() {
    super({ type: 'boolean' }, (value, path, json) => {
      if (typeof value !== 'boolean') fail(path, `must be true or false, not ${typeName(value)}`);
      return value;
    });
  }
}

class EnumSchema extends Schema {
  constructor(values) {
    super({ type: 'string', enum: [...values] }, (value, path, json) => {
      if (!values.includes(value)) {
        fail(path, `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
      }
      return value;
    });
  }
}

class ArraySchema extends Schema {
  constructor(items) {
    super({ type: 'array', items: items.toJSON() }, (value, path, json) => {
      if (!Array.isArray(value)) fail(path, `must be an array, not ${typeName(value)}`);
      const { minItems, maxItems } = json;
      if (minItems !== undefined && value.length < minItems) fail(path, `must have at least ${minItems} items`);
      if (maxItems !== undefined && value.length > maxItems) fail(path, `must have at most ${maxItems} items`);
      return value.map((item, i) => items.parse(item, `${path}[${i}]`));
    });
  }
  min(n) { return this._copy({ minItems: n }); }
  max(n) { return this._copy({ maxItems: n }); }
}

class ObjectSchema extends Schema {
  constructor(shape) {
    const properties = {};
    const required = [];
    for (const [key, field] of Object.entries(shape)) {
      if (!(field instanceof Schema)) {
        throw new TypeError(`property \`${key}\`: use a schema from \`s\` (s.string(), s.number(), ...)`);
      }
      properties[key] = field.toJSON();
      if (!field._optional) required.push(key);
    }
    const json = { type: 'object', properties, additionalProperties: false };
    if (required.length > 0) json.required = required;
    super(json, (value, path, json) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        fail(path, `must be an object, not ${typeName(value)}`);
      }
      const out = {};
      for (const key of Object.keys(value)) {
        if (!(key in shape)) {
          const known = Object.keys(shape).map((k) => `\`${k}\``).join(', ') || 'none';
          fail(path === 'arguments' ? key : `${path}.${key}`, `is not a known property (known: ${known})`);
        }
      }
      for (const [key, field] of Object.entries(shape)) {
        const where = path === 'arguments' ? key : `${path}.${key}`;
        if (value[key] === undefined || (value[key] === null && field._optional)) {
          if (!field._optional) fail(where, 'is missing');
          if (field._default !== undefined) out[key] = structuredClone(field._default);
          continue;
        }
        out[key] = field.parse(value[key], where);
      }
      return out;
    });
    this.shape = shape;
  }
}

/** Schema builders: `s.object({ name: s.string().min(1).describe('Who to greet') })`. */
export const s = {
  string: () => new StringSchema(),
  number: () => new NumberSchema(false),
  integer: () => new NumberSchema(true),
  boolean: () => new BooleanSchema(),
  enum: (values) => new EnumSchema(values),
  array: (items) => new ArraySchema(items),
  object: (shape = {}) => new ObjectSchema(shape),
};

export { Schema, ObjectSchema };
