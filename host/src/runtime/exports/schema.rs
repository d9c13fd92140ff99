//! WIT types as JSON Schema (draft 2020-12), and as the WIT text a generated description
//! shows. The JSON shapes are the ones `json.rs` reads and `output.rs` writes: a record is an
//! object, a variant `{"tag": CASE, "val": PAYLOAD}`, an option its value or `null`, a result
//! `{"ok": ...}` or `{"err": ...}`, flags an array of the names set. Where JSON has no exact
//! form of a value, the shape says how it is written:
//!
//! - `list<u8>` is bytes: a base64 string (RFC 4648, padding optional on the way in), not
//!   an array of numbers (four times the size, and what components mean by it is bytes);
//! - `s64`/`u64` beyond JSON's safe integers (±(2^53−1), what a JavaScript client reads
//!   exactly) come out as decimal strings, and go in as integers or decimal strings;
//! - a float that is not a number comes out as `"NaN"`, `"Infinity"` or `"-Infinity"` (and
//!   goes in so too), never as `null`, which its schema would not allow;
//! - an option of an option writes its outer `some` as `{"some": ...}`, so `some(none)`
//!   (`{"some": null}`) and `none` (`null`) stay apart.

use serde_json::{Value, json};
use wasmtime::component::Type;

/// Nesting deeper than this is refused at load: a schema (and a value) must stay small
/// enough to send and to check.
pub const MAX_DEPTH: usize = 32;

/// Why a type cannot be a tool's parameter or result.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Unsupported {
    #[error(
        "a resource handle ({0}), which has no JSON form: a tool takes and returns plain values"
    )]
    Resource(&'static str),
    #[error("an async {0}, which a tool call cannot carry")]
    Async(&'static str),
    #[error("types nested more than {MAX_DEPTH} deep")]
    TooDeep,
}

/// Which way a value goes: an argument into the component, or a result out of it. The
/// shapes are the same; a schema says only what that side can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Argument,
    Result,
}

/// The JSON Schema of arguments of type `ty`.
pub fn of(ty: &Type) -> Result<Value, Unsupported> {
    schema(ty, 0, Side::Argument)
}

/// The JSON Schema of results of type `ty`.
pub fn of_result(ty: &Type) -> Result<Value, Unsupported> {
    schema(ty, 0, Side::Result)
}

/// The largest integer every JSON reader holds exactly (2^53−1: a double's mantissa).
pub const SAFE_INTEGER: i128 = (1 << 53) - 1;

/// How a float that is not a number is written, both ways.
pub const NOT_A_NUMBER: [&str; 3] = ["NaN", "Infinity", "-Infinity"];

/// `list<u8>`: bytes.
pub fn is_bytes(item: &Type) -> bool {
    matches!(item, Type::U8)
}

/// An `s64`/`u64`: an integer, or its decimal digits (what a client whose numbers are
/// doubles sends, and what comes out beyond [`SAFE_INTEGER`]).
fn wide_integer(min: i128, max: i128) -> Value {
    json!({
        "type": ["integer", "string"],
        "minimum": min_number(min), "maximum": max_number(max),
        "pattern": if min < 0 { "^-?[0-9]+$" } else { "^[0-9]+$" }
    })
}

fn integer(min: i128, max: i128) -> Value {
    json!({"type": "integer", "minimum": min_number(min), "maximum": max_number(max)})
}

fn min_number(n: i128) -> Value {
    i64::try_from(n).map_or(Value::Null, Value::from)
}

fn max_number(n: i128) -> Value {
    u64::try_from(n)
        .map(Value::from)
        .or_else(|_| i64::try_from(n).map(Value::from))
        .unwrap_or(Value::Null)
}

fn schema(ty: &Type, depth: usize, side: Side) -> Result<Value, Unsupported> {
    if depth > MAX_DEPTH {
        return Err(Unsupported::TooDeep);
    }
    let inner = |t: &Type| schema(t, depth + 1, side);
    Ok(match ty {
        Type::Bool => json!({"type": "boolean"}),
        Type::S8 => integer(i8::MIN.into(), i8::MAX.into()),
        Type::U8 => integer(0, u8::MAX.into()),
        Type::S16 => integer(i16::MIN.into(), i16::MAX.into()),
        Type::U16 => integer(0, u16::MAX.into()),
        Type::S32 => integer(i32::MIN.into(), i32::MAX.into()),
        Type::U32 => integer(0, u32::MAX.into()),
        Type::S64 => wide_integer(i64::MIN.into(), i64::MAX.into()),
        Type::U64 => wide_integer(0, u64::MAX.into()),
        // Arguments take the names too; a schema of a parameter shows the usual case.
        Type::Float32 | Type::Float64 if side == Side::Argument => json!({"type": "number"}),
        Type::Float32 | Type::Float64 => {
            json!({"anyOf": [{"type": "number"}, {"enum": NOT_A_NUMBER}]})
        }
        Type::Char => json!({"type": "string", "minLength": 1, "maxLength": 1}),
        Type::String => json!({"type": "string"}),
        Type::List(l) if is_bytes(&l.ty()) => {
            json!({"type": "string", "contentEncoding": "base64", "description": "bytes, base64-encoded"})
        }
        Type::List(l) => json!({"type": "array", "items": inner(&l.ty())?}),
        Type::FixedLengthList(l) => json!({
            "type": "array", "items": inner(&l.ty())?, "minItems": l.len(), "maxItems": l.len()
        }),
        Type::Map(m) => match m.key() {
            Type::String => json!({"type": "object", "additionalProperties": inner(&m.value())?}),
            key => json!({
                "type": "array",
                "items": {
                    "type": "array",
                    "prefixItems": [inner(&key)?, inner(&m.value())?],
                    "items": false, "minItems": 2, "maxItems": 2
                }
            }),
        },
        Type::Record(r) => {
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            for field in r.fields() {
                properties.insert(field.name.to_string(), inner(&field.ty)?);
                if !matches!(field.ty, Type::Option(_)) {
                    required.push(Value::from(field.name));
                }
            }
            json!({
                "type": "object", "properties": properties, "required": required,
                "additionalProperties": false
            })
        }
        Type::Tuple(t) => {
            let items: Vec<Value> = t.types().map(|t| inner(&t)).collect::<Result<_, _>>()?;
            let n = items.len();
            json!({"type": "array", "prefixItems": items, "items": false, "minItems": n, "maxItems": n})
        }
        Type::Variant(v) => {
            let cases = v
                .cases()
                .map(|case| {
                    Ok(match &case.ty {
                        Some(t) => json!({
                            "type": "object",
                            "properties": {"tag": {"const": case.name}, "val": inner(t)?},
                            "required": ["tag", "val"], "additionalProperties": false
                        }),
                        None => json!({
                            "type": "object", "properties": {"tag": {"const": case.name}},
                            "required": ["tag"], "additionalProperties": false
                        }),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            json!({"oneOf": cases})
        }
        Type::Enum(e) => json!({"type": "string", "enum": e.names().collect::<Vec<_>>()}),
        Type::Option(o) => match o.ty() {
            // `some(x)` as `{"some": x}`, so `some(none)` is not `none`.
            nested @ Type::Option(_) => nullable(json!({
                "type": "object", "properties": {"some": inner(&nested)?},
                "required": ["some"], "additionalProperties": false
            })),
            plain => nullable(inner(&plain)?),
        },
        Type::Result(r) => {
            let side = |t: Option<Type>| -> Result<Value, Unsupported> {
                t.map_or(Ok(json!({"type": "null"})), |t| inner(&t))
            };
            json!({"oneOf": [
                {"type": "object", "properties": {"ok": side(r.ok())?}, "required": ["ok"], "additionalProperties": false},
                {"type": "object", "properties": {"err": side(r.err())?}, "required": ["err"], "additionalProperties": false}
            ]})
        }
        Type::Flags(f) => json!({
            "type": "array", "items": {"type": "string", "enum": f.names().collect::<Vec<_>>()},
            "uniqueItems": true
        }),
        Type::Own(_) => return Err(Unsupported::Resource("own")),
        Type::Borrow(_) => return Err(Unsupported::Resource("borrow")),
        Type::Future(_) => return Err(Unsupported::Async("future")),
        Type::Stream(_) => return Err(Unsupported::Async("stream")),
        Type::ErrorContext => return Err(Unsupported::Async("error-context")),
    })
}

/// `schema` or `null` (`none`).
fn nullable(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// `ty` as WIT text, for generated descriptions (nested types are named by shape: a
/// component's binary keeps no type names).
pub fn wit(ty: &Type) -> String {
    wit_at(ty, 0)
}

fn wit_at(ty: &Type, depth: usize) -> String {
    if depth > 4 {
        return "...".into();
    }
    let inner = |t: &Type| wit_at(t, depth + 1);
    match ty {
        Type::Bool => "bool".into(),
        Type::S8 => "s8".into(),
        Type::U8 => "u8".into(),
        Type::S16 => "s16".into(),
        Type::U16 => "u16".into(),
        Type::S32 => "s32".into(),
        Type::U32 => "u32".into(),
        Type::S64 => "s64".into(),
        Type::U64 => "u64".into(),
        Type::Float32 => "f32".into(),
        Type::Float64 => "f64".into(),
        Type::Char => "char".into(),
        Type::String => "string".into(),
        Type::List(l) => format!("list<{}>", inner(&l.ty())),
        Type::FixedLengthList(l) => format!("list<{}, {}>", inner(&l.ty()), l.len()),
        Type::Map(m) => format!("map<{}, {}>", inner(&m.key()), inner(&m.value())),
        Type::Record(r) => format!(
            "record {{ {} }}",
            r.fields()
                .map(|f| format!("{}: {}", f.name, inner(&f.ty)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Type::Tuple(t) => format!(
            "tuple<{}>",
            t.types().map(|t| inner(&t)).collect::<Vec<_>>().join(", ")
        ),
        Type::Variant(v) => format!(
            "variant {{ {} }}",
            v.cases()
                .map(|c| match &c.ty {
                    Some(t) => format!("{}({})", c.name, inner(t)),
                    None => c.name.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Type::Enum(e) => format!("enum {{ {} }}", e.names().collect::<Vec<_>>().join(", ")),
        Type::Option(o) => format!("option<{}>", inner(&o.ty())),
        Type::Result(r) => match (r.ok(), r.err()) {
            (None, None) => "result".into(),
            (Some(ok), None) => format!("result<{}>", inner(&ok)),
            (None, Some(err)) => format!("result<_, {}>", inner(&err)),
            (Some(ok), Some(err)) => format!("result<{}, {}>", inner(&ok), inner(&err)),
        },
        Type::Flags(f) => format!("flags {{ {} }}", f.names().collect::<Vec<_>>().join(", ")),
        Type::Own(_) => "own<resource>".into(),
        Type::Borrow(_) => "borrow<resource>".into(),
        Type::Future(_) => "future".into(),
        Type::Stream(_) => "stream".into(),
        Type::ErrorContext => "error-context".into(),
    }
}
