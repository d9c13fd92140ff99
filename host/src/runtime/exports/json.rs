//! JSON arguments to component values, checked against the WIT types on the way in (an
//! error names the field: `point.x: expected an integer from 0 to 255, got -1`). The
//! shapes are those `schema.rs` describes; `output.rs` writes them back.

use super::schema::{MAX_DEPTH, NOT_A_NUMBER, is_bytes};
use base64::Engine;
use serde_json::{Map, Value};
use wasmtime::component::{Type, Val};

/// An argument that does not fit its type: where, and what was expected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{path}: {message}")]
pub struct Misfit {
    /// The field, as `params.field[2].inner`.
    pub path: String,
    pub message: String,
}

fn misfit(path: &str, message: impl Into<String>) -> Misfit {
    Misfit {
        path: path.to_string(),
        message: message.into(),
    }
}

/// What a JSON value is, for messages (never its content: it may be long or private).
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The arguments object of a call as the function's parameters, in order. A missing
/// parameter of an option type is `none`; any other missing one, and any name the function
/// does not take, is a misfit.
pub fn params(args: &Value, params: &[(String, Type)]) -> Result<Vec<Val>, Misfit> {
    let empty = Map::new();
    let object = match args {
        Value::Object(o) => o,
        Value::Null => &empty,
        other => {
            return Err(misfit(
                "arguments",
                format!("expected an object, got {}", kind(other)),
            ));
        }
    };
    if let Some(extra) = object
        .keys()
        .find(|k| !params.iter().any(|(name, _)| name == *k))
    {
        let known: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
        return Err(misfit(
            extra,
            format!(
                "unknown argument; this tool takes {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        ));
    }
    params
        .iter()
        .map(|(name, ty)| match object.get(name) {
            Some(value) => to_val(value, ty, name, 0),
            None if matches!(ty, Type::Option(_)) => Ok(Val::Option(None)),
            None => Err(misfit(name, "required argument missing")),
        })
        .collect()
}

fn integer<T: TryFrom<i128>>(value: &Value, path: &str, min: i128, max: i128) -> Result<T, Misfit> {
    integer_of(value, path, min, max, false)
}

/// An `s64`/`u64`: an integer, or its decimal digits as a string (a client whose numbers
/// are doubles cannot write one beyond 2^53 exactly otherwise).
fn wide<T: TryFrom<i128>>(value: &Value, path: &str, min: i128, max: i128) -> Result<T, Misfit> {
    integer_of(value, path, min, max, true)
}

fn integer_of<T: TryFrom<i128>>(
    value: &Value,
    path: &str,
    min: i128,
    max: i128,
    digits: bool,
) -> Result<T, Misfit> {
    let n = match value {
        Value::String(s) if digits => {
            let body = s.strip_prefix('-').unwrap_or(s);
            if !body.is_empty() && body.len() <= 20 && body.bytes().all(|b| b.is_ascii_digit()) {
                s.parse::<i128>().ok()
            } else {
                None
            }
        }
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                // 3.0 is the integer 3; 3.5 is not an integer.
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 1e19)
                    .map(|f| f as i128)
            }),
        _ => None,
    };
    n.filter(|n| (min..=max).contains(n))
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| {
            misfit(
                path,
                format!(
                    "expected an integer from {min} to {max}{}, got {}",
                    if digits {
                        " (or its decimal digits as a string)"
                    } else {
                        ""
                    },
                    match value {
                        Value::Number(n) => n.to_string(),
                        other => kind(other).to_string(),
                    }
                ),
            )
        })
}

/// A number, or one of the names of the floats that are not numbers.
fn number(value: &Value, path: &str) -> Result<f64, Misfit> {
    match value {
        Value::String(s) if s == NOT_A_NUMBER[0] => Ok(f64::NAN),
        Value::String(s) if s == NOT_A_NUMBER[1] => Ok(f64::INFINITY),
        Value::String(s) if s == NOT_A_NUMBER[2] => Ok(f64::NEG_INFINITY),
        _ => value.as_f64().ok_or_else(|| {
            misfit(
                path,
                format!(
                    "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), got {}",
                    kind(value)
                ),
            )
        }),
    }
}

/// `list<u8>`: base64 text, padded or not.
fn bytes(value: &Value, path: &str) -> Result<Val, Misfit> {
    let text = value.as_str().ok_or_else(|| {
        misfit(
            path,
            format!("expected bytes as a base64 string, got {}", kind(value)),
        )
    })?;
    let trimmed = text.trim_end_matches('=');
    let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(trimmed)
        .map_err(|e| misfit(path, format!("expected bytes as a base64 string: {e}")))?;
    Ok(Val::List(decoded.into_iter().map(Val::U8).collect()))
}

fn field(path: &str, name: &str) -> String {
    format!("{path}.{name}")
}

fn to_val(value: &Value, ty: &Type, path: &str, depth: usize) -> Result<Val, Misfit> {
    if depth > MAX_DEPTH {
        return Err(misfit(path, format!("nested more than {MAX_DEPTH} deep")));
    }
    let down = |v: &Value, t: &Type, p: &str| to_val(v, t, p, depth + 1);
    Ok(match ty {
        Type::Bool => Val::Bool(
            value
                .as_bool()
                .ok_or_else(|| misfit(path, format!("expected a boolean, got {}", kind(value))))?,
        ),
        Type::S8 => Val::S8(integer(value, path, i8::MIN.into(), i8::MAX.into())?),
        Type::U8 => Val::U8(integer(value, path, 0, u8::MAX.into())?),
        Type::S16 => Val::S16(integer(value, path, i16::MIN.into(), i16::MAX.into())?),
        Type::U16 => Val::U16(integer(value, path, 0, u16::MAX.into())?),
        Type::S32 => Val::S32(integer(value, path, i32::MIN.into(), i32::MAX.into())?),
        Type::U32 => Val::U32(integer(value, path, 0, u32::MAX.into())?),
        Type::S64 => Val::S64(wide(value, path, i64::MIN.into(), i64::MAX.into())?),
        Type::U64 => Val::U64(wide(value, path, 0, u64::MAX.into())?),
        // The nearest f32 (a value outside its range becomes infinity); JSON has no NaN.
        Type::Float32 => Val::Float32(number(value, path)? as f32),
        Type::Float64 => Val::Float64(number(value, path)?),
        Type::Char => {
            let text = value.as_str().ok_or_else(|| {
                misfit(path, format!("expected one character, got {}", kind(value)))
            })?;
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Val::Char(c),
                _ => {
                    return Err(misfit(
                        path,
                        format!(
                            "expected exactly one character, got {} characters",
                            text.chars().count()
                        ),
                    ));
                }
            }
        }
        Type::String => Val::String(
            value
                .as_str()
                .ok_or_else(|| misfit(path, format!("expected a string, got {}", kind(value))))?
                .to_string(),
        ),
        Type::List(l) if is_bytes(&l.ty()) => bytes(value, path)?,
        Type::List(l) => {
            let items = array(value, path)?;
            let item = l.ty();
            Val::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| down(v, &item, &format!("{path}[{i}]")))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::FixedLengthList(l) => {
            let items = array(value, path)?;
            if u32::try_from(items.len()).ok() != Some(l.len()) {
                return Err(misfit(
                    path,
                    format!("expected {} items, got {}", l.len(), items.len()),
                ));
            }
            let item = l.ty();
            Val::FixedLengthList(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| down(v, &item, &format!("{path}[{i}]")))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Map(m) => {
            let (key, val) = (m.key(), m.value());
            match (&key, value) {
                (Type::String, Value::Object(o)) => Val::Map(
                    o.iter()
                        .map(|(k, v)| Ok((Val::String(k.clone()), down(v, &val, &field(path, k))?)))
                        .collect::<Result<_, Misfit>>()?,
                ),
                _ => {
                    let pairs = array(value, path)?;
                    Val::Map(
                        pairs
                            .iter()
                            .enumerate()
                            .map(|(i, pair)| {
                                let at = format!("{path}[{i}]");
                                match pair.as_array().map(Vec::as_slice) {
                                    Some([k, v]) => Ok((
                                        down(k, &key, &format!("{at}[0]"))?,
                                        down(v, &val, &format!("{at}[1]"))?,
                                    )),
                                    _ => Err(misfit(&at, "expected a [key, value] pair")),
                                }
                            })
                            .collect::<Result<_, Misfit>>()?,
                    )
                }
            }
        }
        Type::Record(r) => {
            let object = value
                .as_object()
                .ok_or_else(|| misfit(path, format!("expected an object, got {}", kind(value))))?;
            if let Some(extra) = object
                .keys()
                .find(|k| !r.fields().any(|f| f.name == k.as_str()))
            {
                return Err(misfit(
                    &field(path, extra),
                    format!(
                        "unknown field; the fields are {}",
                        r.fields().map(|f| f.name).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            Val::Record(
                r.fields()
                    .map(|f| {
                        let at = field(path, f.name);
                        let v = match object.get(f.name) {
                            Some(v) => down(v, &f.ty, &at)?,
                            None if matches!(f.ty, Type::Option(_)) => Val::Option(None),
                            None => return Err(misfit(&at, "required field missing")),
                        };
                        Ok((f.name.to_string(), v))
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Tuple(t) => {
            let items = array(value, path)?;
            if items.len() != t.types().len() {
                return Err(misfit(
                    path,
                    format!("expected {} items, got {}", t.types().len(), items.len()),
                ));
            }
            Val::Tuple(
                t.types()
                    .zip(items)
                    .enumerate()
                    .map(|(i, (ty, v))| down(v, &ty, &format!("{path}[{i}]")))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Variant(v) => {
            let object = value.as_object().ok_or_else(|| {
                misfit(
                    path,
                    format!(
                        "expected an object {{\"tag\": CASE, \"val\": ...}}, got {}",
                        kind(value)
                    ),
                )
            })?;
            let names = || v.cases().map(|c| c.name).collect::<Vec<_>>().join(", ");
            let tag = object.get("tag").and_then(Value::as_str).ok_or_else(|| {
                misfit(&field(path, "tag"), format!("expected one of {}", names()))
            })?;
            let case = v.cases().find(|c| c.name == tag).ok_or_else(|| {
                misfit(
                    &field(path, "tag"),
                    format!("unknown case; the cases are {}", names()),
                )
            })?;
            if let Some(extra) = object.keys().find(|k| *k != "tag" && *k != "val") {
                return Err(misfit(
                    &field(path, extra),
                    "unknown field; a variant has tag and val",
                ));
            }
            let payload = match (&case.ty, object.get("val")) {
                (Some(t), Some(v)) => Some(Box::new(down(v, t, &field(path, "val"))?)),
                (Some(_), None) => {
                    return Err(misfit(&field(path, "val"), "required for this case"));
                }
                (None, None | Some(Value::Null)) => None,
                (None, Some(_)) => {
                    return Err(misfit(&field(path, "val"), "this case carries no value"));
                }
            };
            Val::Variant(tag.to_string(), payload)
        }
        Type::Enum(e) => {
            let name = value
                .as_str()
                .filter(|s| e.names().any(|n| n == *s))
                .ok_or_else(|| {
                    misfit(
                        path,
                        format!(
                            "expected one of {}",
                            e.names().collect::<Vec<_>>().join(", ")
                        ),
                    )
                })?;
            Val::Enum(name.to_string())
        }
        Type::Option(o) => match (value, o.ty()) {
            (Value::Null, _) => Val::Option(None),
            // An option of an option: `some` is spelled out (`{"some": null}` is `some(none)`).
            (some, nested @ Type::Option(_)) => {
                let inner = some
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.get("some"))
                    .ok_or_else(|| misfit(path, "expected null or {\"some\": ...}"))?;
                Val::Option(Some(Box::new(down(inner, &nested, &field(path, "some"))?)))
            }
            (some, plain) => Val::Option(Some(Box::new(down(some, &plain, path)?))),
        },
        Type::Result(r) => {
            let object = value
                .as_object()
                .filter(|o| o.len() == 1)
                .ok_or_else(|| misfit(path, "expected {\"ok\": ...} or {\"err\": ...}"))?;
            let side = |t: Option<Type>, v: &Value, p: &str| -> Result<Option<Box<Val>>, Misfit> {
                match t {
                    Some(t) => Ok(Some(Box::new(down(v, &t, p)?))),
                    None if v.is_null() => Ok(None),
                    None => Err(misfit(p, "expected null: this side carries no value")),
                }
            };
            if let Some(v) = object.get("ok") {
                Val::Result(Ok(side(r.ok(), v, &field(path, "ok"))?))
            } else if let Some(v) = object.get("err") {
                Val::Result(Err(side(r.err(), v, &field(path, "err"))?))
            } else {
                return Err(misfit(path, "expected {\"ok\": ...} or {\"err\": ...}"));
            }
        }
        Type::Flags(f) => {
            let items = array(value, path)?;
            let mut set: Vec<String> = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let name = item
                    .as_str()
                    .filter(|s| f.names().any(|n| n == *s))
                    .ok_or_else(|| {
                        misfit(
                            &format!("{path}[{i}]"),
                            format!(
                                "expected one of {}",
                                f.names().collect::<Vec<_>>().join(", ")
                            ),
                        )
                    })?;
                if set.iter().any(|s| s == name) {
                    return Err(misfit(
                        &format!("{path}[{i}]"),
                        format!("\"{name}\" is set twice"),
                    ));
                }
                set.push(name.to_string());
            }
            Val::Flags(set)
        }
        Type::Own(_) | Type::Borrow(_) | Type::Future(_) | Type::Stream(_) | Type::ErrorContext => {
            // Refused when the plugin loads (`schema::of`); never reached.
            return Err(misfit(path, "this type has no JSON form"));
        }
    })
}

fn array<'a>(value: &'a Value, path: &str) -> Result<&'a Vec<Value>, Misfit> {
    value
        .as_array()
        .ok_or_else(|| misfit(path, format!("expected an array, got {}", kind(value))))
}
