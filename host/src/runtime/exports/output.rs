//! Component values as JSON, in the shapes `schema.rs` describes, guided by the WIT type:
//! bytes (`list<u8>`) as base64 even when empty, `s64`/`u64` beyond JSON's safe integers as
//! decimal strings, floats that are not numbers by name, an option of an option with its
//! `some` spelled out.

use super::schema::{NOT_A_NUMBER, SAFE_INTEGER, is_bytes};
use base64::Engine;
use serde_json::{Map, Value};
use wasmtime::component::{Type, Val};

/// `val`, of type `ty`, as JSON.
pub fn json(val: &Val, ty: &Type) -> Value {
    match (val, ty) {
        (Val::Bool(b), _) => Value::Bool(*b),
        (Val::S8(n), _) => Value::from(*n),
        (Val::U8(n), _) => Value::from(*n),
        (Val::S16(n), _) => Value::from(*n),
        (Val::U16(n), _) => Value::from(*n),
        (Val::S32(n), _) => Value::from(*n),
        (Val::U32(n), _) => Value::from(*n),
        (Val::S64(n), _) => wide(i128::from(*n)),
        (Val::U64(n), _) => wide(i128::from(*n)),
        // The shortest decimal that reads back as the same f32 (0.1, not 0.10000000149).
        (Val::Float32(f), _) => float(f.to_string().parse().unwrap_or(f64::from(*f))),
        (Val::Float64(f), _) => float(*f),
        (Val::Char(c), _) => Value::String(c.to_string()),
        (Val::String(s), _) => Value::String(s.clone()),
        (Val::List(items), Type::List(l)) if is_bytes(&l.ty()) => {
            let bytes: Vec<u8> = items
                .iter()
                .filter_map(|v| match v {
                    Val::U8(b) => Some(*b),
                    _ => None,
                })
                .collect();
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        (Val::List(items), Type::List(l)) => {
            let item = l.ty();
            Value::Array(items.iter().map(|v| json(v, &item)).collect())
        }
        (Val::FixedLengthList(items), Type::FixedLengthList(l)) => {
            let item = l.ty();
            Value::Array(items.iter().map(|v| json(v, &item)).collect())
        }
        (Val::Tuple(items), Type::Tuple(t)) => Value::Array(
            items
                .iter()
                .zip(t.types())
                .map(|(v, t)| json(v, &t))
                .collect(),
        ),
        (Val::Map(pairs), Type::Map(m)) => {
            let (key, value) = (m.key(), m.value());
            if matches!(key, Type::String) {
                Value::Object(
                    pairs
                        .iter()
                        .filter_map(|(k, v)| match k {
                            Val::String(k) => Some((k.clone(), json(v, &value))),
                            _ => None,
                        })
                        .collect(),
                )
            } else {
                Value::Array(
                    pairs
                        .iter()
                        .map(|(k, v)| Value::Array(vec![json(k, &key), json(v, &value)]))
                        .collect(),
                )
            }
        }
        (Val::Record(fields), Type::Record(r)) => Value::Object(
            fields
                .iter()
                .zip(r.fields())
                .map(|((name, v), f)| (name.clone(), json(v, &f.ty)))
                .collect(),
        ),
        (Val::Variant(tag, payload), Type::Variant(v)) => {
            let mut object = Map::new();
            object.insert("tag".into(), Value::String(tag.clone()));
            let case = v.cases().find(|c| c.name == tag).and_then(|c| c.ty);
            if let (Some(p), Some(t)) = (payload, case) {
                object.insert("val".into(), json(p, &t));
            }
            Value::Object(object)
        }
        (Val::Enum(name), _) => Value::String(name.clone()),
        (Val::Option(None), _) => Value::Null,
        (Val::Option(Some(v)), Type::Option(o)) => match o.ty() {
            nested @ Type::Option(_) => {
                let mut object = Map::new();
                object.insert("some".into(), json(v, &nested));
                Value::Object(object)
            }
            plain => json(v, &plain),
        },
        (Val::Result(r), Type::Result(t)) => {
            let (key, v, side) = match r {
                Ok(v) => ("ok", v, t.ok()),
                Err(v) => ("err", v, t.err()),
            };
            let mut object = Map::new();
            let inner = match (v.as_deref(), side) {
                (Some(v), Some(t)) => json(v, &t),
                _ => Value::Null,
            };
            object.insert(key.into(), inner);
            Value::Object(object)
        }
        (Val::Flags(names), _) => Value::Array(names.iter().cloned().map(Value::String).collect()),
        // A value whose type does not match (never from wasmtime), a resource or an async
        // value (refused when the plugin loads): nothing to show.
        _ => Value::Null,
    }
}

/// An `s64`/`u64`: a number where every JSON reader holds it exactly, else its digits.
fn wide(n: i128) -> Value {
    if (-SAFE_INTEGER..=SAFE_INTEGER).contains(&n) {
        i64::try_from(n).map_or(Value::Null, Value::from)
    } else {
        Value::String(n.to_string())
    }
}

fn float(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or_else(
        || {
            let name = if f.is_nan() {
                NOT_A_NUMBER[0]
            } else if f > 0.0 {
                NOT_A_NUMBER[1]
            } else {
                NOT_A_NUMBER[2]
            };
            Value::String(name.into())
        },
        Value::Number,
    )
}

#[cfg(test)]
mod tests {
    use super::{float, wide};
    use serde_json::json;

    #[test]
    fn integers_beyond_the_safe_range_are_digits_and_odd_floats_names() {
        assert_eq!(
            wide(9_007_199_254_740_991),
            json!(9_007_199_254_740_991_i64)
        );
        assert_eq!(wide(9_007_199_254_740_992), json!("9007199254740992"));
        assert_eq!(wide(-9_007_199_254_740_992), json!("-9007199254740992"));
        assert_eq!(wide(i128::from(u64::MAX)), json!("18446744073709551615"));
        assert_eq!(float(f64::NAN), json!("NaN"));
        assert_eq!(float(f64::NEG_INFINITY), json!("-Infinity"));
        assert_eq!(float(1.5), json!(1.5));
    }
}
