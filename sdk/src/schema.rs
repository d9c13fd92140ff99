//! Lean JSON Schemas for `tools/list`: every client pays for a tool's schema on every
//! connection, so the schemars output loses what does not help a model call the tool.
//!
//! For arguments ([`lean_input`]): `$schema`, titles, `format` (`uint64`, `double`...),
//! the bounds of the Rust integer type (`minimum: 0`, `maximum: 65535`), line breaks of doc comments, `additionalProperties:
//! false` (unknown fields are still refused when the arguments are parsed), and the `null`
//! alternative of optional fields (an optional field is simply left out). A `oneOf` of
//! constants becomes an `enum`. For results ([`lean_output`]) only the annotations go: a
//! result may really hold `null`.

use serde_json::{Map, Value};

/// Leans an argument schema in place.
pub(crate) fn lean_input(schema: &mut Value) {
    lean_root(schema);
    lean(schema, true);
}

/// Leans a result schema in place.
pub(crate) fn lean_output(schema: &mut Value) {
    lean_root(schema);
    lean(schema, false);
}

/// The root's description is the Rust type's doc comment ("Arguments of `x`"), written for
/// the plugin's readers: the tool's own description speaks to the model.
fn lean_root(schema: &mut Value) {
    if let Some(map) = schema.as_object_mut() {
        map.remove("description");
    }
}

/// Lower bounds of Rust's integer types, as schemars writes them.
const TYPE_MINIMA: &[f64] = &[0.0, -128.0, -32768.0, -2_147_483_648.0];
/// Upper bounds of Rust's integer types up to 32 bits (wider ones are not exact in JSON).
const TYPE_MAXIMA: &[f64] = &[
    127.0,
    255.0,
    32767.0,
    65535.0,
    2_147_483_647.0,
    4_294_967_295.0,
];

fn lean(schema: &mut Value, input: bool) {
    let Value::Object(map) = schema else { return };
    lean_object(map, input);
    // Recurse into subschemas only: the keys of `properties` are field names (a field may
    // well be called `format` or `title`), and `enum`, `const` or `default` hold values.
    for (key, child) in map.iter_mut() {
        match (key.as_str(), child) {
            ("properties" | "$defs" | "patternProperties", Value::Object(named)) => {
                named.values_mut().for_each(|s| lean(s, input));
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(list)) => {
                list.iter_mut().for_each(|s| lean(s, input));
            }
            ("items" | "additionalProperties" | "not", s @ Value::Object(_)) => lean(s, input),
            _ => {}
        }
    }
    if input {
        // After the children: a variant may have become `{"type": "null"}` only now.
        drop_null_alternative(map);
        consts_to_enum(map);
        types_to_list(map);
    }
}

fn lean_object(map: &mut Map<String, Value>, input: bool) {
    map.remove("$schema");
    map.remove("format");
    map.remove("title");
    if is_integer(map) {
        // The bounds of the Rust integer type (`u16` gives `maximum: 65535`) say nothing about
        // the tool: a value out of them is still refused when the arguments are parsed.
        for (key, bounds) in [("minimum", TYPE_MINIMA), ("maximum", TYPE_MAXIMA)] {
            if map
                .get(key)
                .and_then(Value::as_f64)
                .is_some_and(|v| bounds.contains(&v))
            {
                map.remove(key);
            }
        }
    }
    // Doc comments keep their line breaks; one line reads the same for fewer characters.
    if let Some(Value::String(d)) = map.get_mut("description")
        && d.contains('\n')
    {
        *d = d.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    if !input {
        return;
    }
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        map.remove("additionalProperties");
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    // An optional unit enum lists `null` among its values.
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    // `"type": ["integer", "null"]` -> `"type": "integer"`.
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if map
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        map.remove("required");
    }
}

fn is_integer(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    }
}

/// `{"anyOf": [X, {"type": "null"}], "description": d}` -> X with description d.
fn drop_null_alternative(map: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(options)) = map.get_mut(key) else {
            continue;
        };
        let is_null = |v: &Value| {
            v.as_object().is_some_and(|o| {
                o.len() == 1 && o.get("type") == Some(&Value::String("null".into()))
            })
        };
        if options.len() != 2 || !options.iter().any(is_null) {
            continue;
        }
        options.retain(|v| !is_null(v));
        let Some(Value::Object(inner)) = options.pop() else {
            continue;
        };
        map.remove(key);
        for (k, v) in inner {
            // The field's own description says more than the type's.
            map.entry(k).or_insert(v);
        }
    }
}

/// `{"anyOf": [{"type": "integer"}, {"type": "string"}]}` -> `{"type": ["integer", "string"]}`.
fn types_to_list(map: &mut Map<String, Value>) {
    let Some(Value::Array(options)) = map.get("anyOf") else {
        return;
    };
    let types: Option<Vec<Value>> = options
        .iter()
        .map(|o| match o.as_object() {
            Some(o) if o.len() == 1 => o.get("type").filter(|t| t.is_string()).cloned(),
            _ => None,
        })
        .collect();
    if let Some(types) = types
        && !map.contains_key("type")
    {
        map.remove("anyOf");
        map.insert("type".into(), Value::Array(types));
    }
}

/// `{"oneOf": [{"const": "a", "description": ...}, ...]}` -> `{"enum": ["a", ...]}`. The
/// values' descriptions are kept, joined, only when the field has no description of its own.
fn consts_to_enum(map: &mut Map<String, Value>) {
    let Some(Value::Array(options)) = map.get("oneOf") else {
        return;
    };
    let mut values = Vec::new();
    let mut notes = Vec::new();
    let mut kind: Option<&Value> = None;
    for option in options {
        let Some(o) = option.as_object() else { return };
        if o.keys()
            .any(|k| !matches!(k.as_str(), "const" | "description" | "type"))
        {
            return;
        }
        let Some(value) = o.get("const") else { return };
        if let Some(t) = o.get("type") {
            if kind.is_some_and(|k| k != t) {
                return;
            }
            kind = Some(t);
        }
        if let Some(Value::String(d)) = o.get("description") {
            notes.push(format!(
                "{}: {d}",
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned)
            ));
        }
        values.push(value.clone());
    }
    let kind = kind.cloned();
    map.remove("oneOf");
    if let Some(kind) = kind {
        map.entry("type").or_insert(kind);
    }
    map.insert("enum".into(), Value::Array(values));
    if !map.contains_key("description") && !notes.is_empty() {
        map.insert("description".into(), Value::String(notes.join("; ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_fields_lose_null_and_noise() {
        let mut s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "description": "Arguments of `x`.",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "title": {"type": "string"},
                "format": {"type": "string", "format": "uri"},
                "n": {"type": ["integer", "null"], "format": "uint64", "minimum": 0, "description": "How\nmany."},
                "mode": {"anyOf": [{"oneOf": [
                    {"const": "a", "type": "string", "description": "The A."},
                    {"const": "b", "type": "string"}
                ]}, {"type": "null"}], "description": "a or b."},
                "kind": {"oneOf": [{"const": "x", "type": "string", "description": "X it."}]},
                "unit": {"type": ["string", "null"], "enum": ["a", "b", null]},
                "ref": {"anyOf": [{"type": "integer", "format": "uint32", "minimum": 0}, {"type": "string"}]}
            },
            "required": ["title"]
        });
        lean_input(&mut s);
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "format": {"type": "string"},
                    "n": {"type": "integer", "description": "How many."},
                    "mode": {"type": "string", "enum": ["a", "b"], "description": "a or b."},
                    "kind": {"type": "string", "enum": ["x"], "description": "x: X it."},
                    "unit": {"type": "string", "enum": ["a", "b"]},
                    "ref": {"type": ["integer", "string"]}
                },
                "required": ["title"]
            })
        );
    }

    #[test]
    fn integer_type_bounds_go_and_real_bounds_stay() {
        let mut s = json!({"type": "object", "properties": {
            "port": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535},
            "notches": {"type": ["integer", "null"], "format": "int16", "minimum": -32768, "maximum": 32767},
            "cols": {"type": "integer", "minimum": 10, "maximum": 500},
            "scale": {"type": "number", "minimum": 0, "maximum": 255}
        }});
        lean_input(&mut s);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "port": {"type": "integer"},
                "notches": {"type": "integer"},
                "cols": {"type": "integer", "minimum": 10, "maximum": 500},
                "scale": {"type": "number", "minimum": 0, "maximum": 255}
            }})
        );
    }

    #[test]
    fn results_keep_null() {
        let mut s = json!({"$schema": "x", "title": "Out", "type": "object", "properties": {
            "code": {"type": ["integer", "null"], "format": "int32", "description": "The\n code."}
        }});
        lean_output(&mut s);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {"code": {"type": ["integer", "null"], "description": "The code."}}})
        );
    }
}
