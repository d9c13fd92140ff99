//! JSON arguments to component values, checked against the WIT types on the way in (an
//! error names the field: `point.x: expected an integer from 0 to 255, got -1`). The
//! shapes are those `schema.rs` describes; `output.rs` writes them back.
//!
//! The values are built straight from the argument text, driven by the function's types
//! (a `DeserializeSeed` per type), with no `serde_json::Value` tree in between, and every
//! value built is charged to a budget (see [`budget`]): a component value is far larger
//! than its JSON (a `Val` per byte of a `list<u8>`, tens of bytes per small integer), so
//! what a call may take in host memory is bounded before it is taken, and a call past the
//! budget is refused naming it. A number is never rounded into a type: an integer type
//! takes only a JSON integer within its range (or, for `s64`/`u64`, its decimal digits as
//! a string); a fraction, an exponent or a value past the range is refused.

use super::schema::{NOT_A_NUMBER, is_bytes};
use base64::Engine;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;
use wasmtime::component::{Type, Val};

/// An argument that does not fit its type: where, and what was expected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{path}: {message}")]
pub struct Misfit {
    /// The field, as `params.field[2].inner`.
    pub path: String,
    pub message: String,
}

/// Why the arguments of a call were refused.
#[derive(Debug, thiserror::Error)]
pub enum ArgsError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error(transparent)]
    Misfit(#[from] Misfit),
}

/// Host memory the values of one call may take, at the least.
pub const FLOOR: usize = 64 * 1024 * 1024;

/// Host memory the values of one call may take, per byte of its argument text, once that
/// is more than the floor.
pub const PER_BYTE: usize = 4;

/// The budget of a call whose arguments are `len` bytes of JSON: `PER_BYTE` host bytes
/// per argument byte, and never less than `FLOOR` (a small call of a costly shape, such
/// as a `list<u8>` of up to about 800 KB, still fits).
pub fn budget(len: usize) -> usize {
    FLOOR.max(len.saturating_mul(PER_BYTE))
}

/// Where a value is: a parameter, a field of its parent, or an item of it.
enum Step<'a> {
    Name(&'a str),
    Index(usize),
}

/// A value's path, linked up its parents on the stack: nothing is allocated for it unless
/// an error names it.
struct At<'a> {
    parent: Option<&'a At<'a>>,
    step: Step<'a>,
}

impl At<'_> {
    fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(a) = at {
            steps.push(&a.step);
            at = a.parent;
        }
        let mut out = String::new();
        for (i, step) in steps.into_iter().rev().enumerate() {
            match step {
                Step::Name(n) if i == 0 => out.push_str(n),
                Step::Name(n) => {
                    out.push('.');
                    out.push_str(n);
                }
                Step::Index(k) => out.push_str(&format!("[{k}]")),
            }
        }
        out
    }
}

/// What one conversion shares: the budget left, and the first misfit found (serde's own
/// error carries only text, so the misfit waits here while serde unwinds).
struct Cx {
    left: Cell<usize>,
    limit: usize,
    misfit: RefCell<Option<Misfit>>,
}

impl Cx {
    fn fail<E: de::Error>(&self, at: &At<'_>, message: impl Into<String>) -> E {
        let mut slot = self.misfit.borrow_mut();
        if slot.is_none() {
            *slot = Some(Misfit {
                path: at.render(),
                message: message.into(),
            });
        }
        E::custom("argument misfit")
    }

    fn charge<E: de::Error>(&self, at: &At<'_>, bytes: usize) -> Result<(), E> {
        // Twice what the values take: the call holds a second copy of them while wasmtime
        // lowers them into the instance (measured: a `list<u8>` peaks at about 90 host bytes
        // per byte, for a 40-byte value each).
        match self.left.get().checked_sub(bytes.saturating_mul(2)) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(self.fail(
                at,
                format!(
                    "the arguments would take more than {} MiB of host memory as component values, the most one call of this tool may take (at least {} MiB, and {PER_BYTE} bytes per byte of arguments); send less in one call",
                    self.limit >> 20,
                    FLOOR >> 20
                ),
            )),
        }
    }
}

const VAL: usize = std::mem::size_of::<Val>();

/// What the allocator adds to each heap allocation (a string's, a box's, a vector's).
const ALLOC: usize = 16;

/// The arguments object of a call (JSON text) as the function's parameters, in order. A
/// missing parameter of an option type is `none`; any other missing one, any name the
/// function does not take and any name given twice is a misfit.
pub fn params(text: &str, params: &[(String, Type)]) -> Result<Vec<Val>, ArgsError> {
    let limit = budget(text.len());
    let cx = Cx {
        left: Cell::new(limit),
        limit,
        misfit: RefCell::new(None),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Params { params, cx: &cx }
        .deserialize(&mut de)
        .and_then(|vals| de.end().map(|()| vals));
    match (parsed, cx.misfit.into_inner()) {
        (_, Some(misfit)) => Err(ArgsError::Misfit(misfit)),
        (Ok(vals), None) => Ok(vals),
        (Err(e), None) => Err(ArgsError::NotJson(e.to_string())),
    }
}

struct Params<'a> {
    params: &'a [(String, Type)],
    cx: &'a Cx,
}

const TOP: At<'static> = At {
    parent: None,
    step: Step::Name("arguments"),
};

impl<'de> DeserializeSeed<'de> for Params<'_> {
    type Value = Vec<Val>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<Val>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Params<'_> {
    type Value = Vec<Val>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of arguments")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<Val>, E> {
        self.finish(vec![None; self.params.len()])
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Val>, A::Error> {
        let mut got: Vec<Option<Val>> = vec![None; self.params.len()];
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let at = At {
                parent: None,
                step: Step::Name(&key),
            };
            let Some(i) = self.params.iter().position(|(n, _)| *n == *key) else {
                let known: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
                return Err(self.cx.fail(
                    &at,
                    format!(
                        "unknown argument; this tool takes {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            };
            if got[i].is_some() {
                return Err(self.cx.fail(&at, "given twice"));
            }
            got[i] = Some(map.next_value_seed(Seed {
                ty: &self.params[i].1,
                at: &at,
                cx: self.cx,
            })?);
        }
        self.finish(got)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Vec<Val>, E> {
        Err(self.refuse("a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Vec<Val>, E> {
        Err(self.refuse("an integer"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Vec<Val>, E> {
        Err(self.refuse("an integer"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Vec<Val>, E> {
        Err(self.refuse("a fractional number"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Vec<Val>, E> {
        Err(self.refuse("a string"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Vec<Val>, A::Error> {
        Err(self.refuse("an array"))
    }
}

impl Params<'_> {
    fn refuse<E: de::Error>(&self, kind: &str) -> E {
        self.cx
            .fail(&TOP, format!("expected an object, got {kind}"))
    }

    fn finish<E: de::Error>(&self, got: Vec<Option<Val>>) -> Result<Vec<Val>, E> {
        got.into_iter()
            .zip(self.params)
            .map(|(v, (name, ty))| match v {
                Some(v) => Ok(v),
                None if matches!(ty, Type::Option(_)) => Ok(Val::Option(None)),
                None => Err(self.cx.fail(
                    &At {
                        parent: None,
                        step: Step::Name(name),
                    },
                    "required argument missing",
                )),
            })
            .collect()
    }
}

/// One value of type `ty` at `at`.
#[derive(Clone, Copy)]
struct Seed<'a> {
    ty: &'a Type,
    at: &'a At<'a>,
    cx: &'a Cx,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Val;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        d.deserialize_any(self)
    }
}

/// A JSON number as the parser read it (an integer literal beyond 64 bits is a float).
#[derive(Clone, Copy)]
enum Number {
    Signed(i64),
    Unsigned(u64),
    Float(f64),
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Number::Signed(n) => write!(f, "{n}"),
            Number::Unsigned(n) => write!(f, "{n}"),
            Number::Float(n) => write!(f, "{n:?}"),
        }
    }
}

fn names(names: impl Iterator<Item = impl AsRef<str>>) -> String {
    names
        .map(|n| n.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The range of an integer type, and whether its decimal digits are taken as a string.
fn range(ty: &Type) -> Option<(i128, i128, bool)> {
    Some(match ty {
        Type::S8 => (i8::MIN.into(), i8::MAX.into(), false),
        Type::U8 => (0, u8::MAX.into(), false),
        Type::S16 => (i16::MIN.into(), i16::MAX.into(), false),
        Type::U16 => (0, u16::MAX.into(), false),
        Type::S32 => (i32::MIN.into(), i32::MAX.into(), false),
        Type::U32 => (0, u32::MAX.into(), false),
        Type::S64 => (i64::MIN.into(), i64::MAX.into(), true),
        Type::U64 => (0, u64::MAX.into(), true),
        _ => return None,
    })
}

fn integer_val(ty: &Type, n: i128) -> Option<Val> {
    Some(match ty {
        Type::S8 => Val::S8(n.try_into().ok()?),
        Type::U8 => Val::U8(n.try_into().ok()?),
        Type::S16 => Val::S16(n.try_into().ok()?),
        Type::U16 => Val::U16(n.try_into().ok()?),
        Type::S32 => Val::S32(n.try_into().ok()?),
        Type::U32 => Val::U32(n.try_into().ok()?),
        Type::S64 => Val::S64(n.try_into().ok()?),
        Type::U64 => Val::U64(n.try_into().ok()?),
        _ => return None,
    })
}

impl<'a> Seed<'a> {
    fn fail<E: de::Error>(&self, message: impl Into<String>) -> E {
        self.cx.fail(self.at, message)
    }

    /// What this type takes, for a message.
    fn expected(&self) -> String {
        match self.ty {
            Type::Bool => "expected a boolean".into(),
            ty @ (Type::S8
            | Type::U8
            | Type::S16
            | Type::U16
            | Type::S32
            | Type::U32
            | Type::S64
            | Type::U64) => {
                let (min, max, digits) = range(ty).unwrap_or((0, 0, false));
                format!(
                    "expected an integer from {min} to {max}{}",
                    if digits {
                        " (or its decimal digits as a string)"
                    } else {
                        ""
                    }
                )
            }
            Type::Float32 | Type::Float64 => {
                "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\")".into()
            }
            Type::Char => "expected one character".into(),
            Type::String => "expected a string".into(),
            Type::List(l) if is_bytes(&l.ty()) => "expected bytes as a base64 string".into(),
            Type::List(_) | Type::FixedLengthList(_) | Type::Tuple(_) | Type::Flags(_) => {
                "expected an array".into()
            }
            Type::Map(m) if matches!(m.key(), Type::String) => {
                "expected an object (or an array of [key, value] pairs)".into()
            }
            Type::Map(_) => "expected an array of [key, value] pairs".into(),
            Type::Record(_) => "expected an object".into(),
            Type::Variant(_) => "expected an object {\"tag\": CASE, \"val\": ...}".into(),
            Type::Enum(e) => format!("expected one of {}", names(e.names())),
            Type::Option(_) => "expected null or {\"some\": ...}".into(),
            Type::Result(_) => "expected {\"ok\": ...} or {\"err\": ...}".into(),
            _ => "this type has no JSON form".into(),
        }
    }

    fn wrong<E: de::Error>(&self, got: &str) -> E {
        self.fail(format!("{}, got {got}", self.expected()))
    }

    /// The value inside a plain option (not an option of an option, whose `some` is
    /// spelled out), with what wraps it.
    fn some(&self) -> Option<Type> {
        match self.ty {
            Type::Option(o) => match o.ty() {
                Type::Option(_) => None,
                inner => Some(inner),
            },
            _ => None,
        }
    }

    fn wrap<E: de::Error>(&self, inner: Result<Val, E>) -> Result<Val, E> {
        let inner = inner?;
        self.cx.charge(self.at, VAL + ALLOC)?;
        Ok(Val::Option(Some(Box::new(inner))))
    }

    fn child<'b>(&'b self, ty: &'b Type, at: &'b At<'b>) -> Seed<'b> {
        Seed {
            ty,
            at,
            cx: self.cx,
        }
    }

    fn number<E: de::Error>(self, n: Number) -> Result<Val, E> {
        if let Some(inner) = self.some() {
            return self.wrap(self.child(&inner, self.at).number(n));
        }
        match self.ty {
            Type::Float64 => Ok(Val::Float64(match n {
                Number::Signed(i) => i as f64,
                Number::Unsigned(u) => u as f64,
                Number::Float(f) => f,
            })),
            // The nearest f32 (a value outside its range becomes infinity).
            Type::Float32 => Ok(Val::Float32(match n {
                Number::Signed(i) => i as f32,
                Number::Unsigned(u) => u as f32,
                Number::Float(f) => f as f32,
            })),
            ty => {
                let Some((min, max, _)) = range(ty) else {
                    return Err(self.wrong(&format!("the number {n}")));
                };
                let whole = match n {
                    Number::Signed(i) => Some(i128::from(i)),
                    Number::Unsigned(u) => Some(i128::from(u)),
                    // Written with a fraction or an exponent, or past 64 bits: what it
                    // meant is not known exactly, so it is not guessed.
                    Number::Float(_) => None,
                };
                match whole
                    .filter(|w| (min..=max).contains(w))
                    .and_then(|w| integer_val(ty, w))
                {
                    Some(v) => Ok(v),
                    None => Err(self.fail(format!(
                        "{}, got {n}{}",
                        self.expected(),
                        if whole.is_none() {
                            " (a number with a fraction or an exponent, or past 64 bits, is never rounded to an integer: write its digits)"
                        } else {
                            ""
                        }
                    ))),
                }
            }
        }
    }

    fn text<E: de::Error>(self, text: Cow<'_, str>) -> Result<Val, E> {
        if let Some(inner) = self.some() {
            return self.wrap(self.child(&inner, self.at).text(text));
        }
        match self.ty {
            Type::String => {
                self.cx.charge(self.at, text.len() + ALLOC)?;
                Ok(Val::String(text.into_owned()))
            }
            Type::Char => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Ok(Val::Char(c)),
                    _ => Err(self.fail(format!(
                        "expected exactly one character, got {} characters",
                        text.chars().count()
                    ))),
                }
            }
            Type::List(l) if is_bytes(&l.ty()) => self.bytes(&text),
            Type::Enum(e) => match e.names().find(|n| *n == text) {
                Some(name) => {
                    self.cx.charge(self.at, name.len() + ALLOC)?;
                    Ok(Val::Enum(name.to_string()))
                }
                None => Err(self.fail(self.expected())),
            },
            Type::Float32 | Type::Float64 => {
                let f = match &*text {
                    t if t == NOT_A_NUMBER[0] => f64::NAN,
                    t if t == NOT_A_NUMBER[1] => f64::INFINITY,
                    t if t == NOT_A_NUMBER[2] => f64::NEG_INFINITY,
                    _ => return Err(self.wrong("a string")),
                };
                Ok(match self.ty {
                    Type::Float32 => Val::Float32(f as f32),
                    _ => Val::Float64(f),
                })
            }
            ty @ (Type::S64 | Type::U64) => {
                let body = text.strip_prefix('-').unwrap_or(&text);
                let parsed = (!body.is_empty()
                    && body.len() <= 20
                    && body.bytes().all(|b| b.is_ascii_digit()))
                .then(|| text.parse::<i128>().ok())
                .flatten();
                let (min, max, _) = range(ty).unwrap_or((0, 0, true));
                match parsed
                    .filter(|n| (min..=max).contains(n))
                    .and_then(|n| integer_val(ty, n))
                {
                    Some(v) => Ok(v),
                    None if parsed.is_some() => {
                        Err(self.fail(format!("{}, got {text}", self.expected())))
                    }
                    None => Err(self.wrong("a string")),
                }
            }
            _ => Err(self.wrong("a string")),
        }
    }

    /// `list<u8>`: base64 text, padded or not, decoded a slice at a time so that only the
    /// values are held (charged before they are made).
    fn bytes<E: de::Error>(&self, text: &str) -> Result<Val, E> {
        let trimmed = text.trim_end_matches('=').as_bytes();
        let count = trimmed.len() / 4 * 3 + (trimmed.len() % 4).saturating_sub(1);
        self.cx.charge(self.at, count.saturating_mul(VAL))?;
        let mut out = Vec::with_capacity(count);
        let mut buf = [0u8; 3 * 1024];
        for chunk in trimmed.chunks(4 * 1024) {
            let n = base64::engine::general_purpose::STANDARD_NO_PAD
                .decode_slice(chunk, &mut buf)
                .map_err(|e| self.fail(format!("expected bytes as a base64 string: {e}")))?;
            out.extend(buf[..n].iter().map(|b| Val::U8(*b)));
        }
        Ok(Val::List(out))
    }

    /// Room for one more item in `items`, its growth charged as it is allocated.
    fn grow<T, E: de::Error>(&self, items: &mut Vec<T>, at: &At<'_>) -> Result<(), E> {
        if items.len() == items.capacity() {
            let more = items.capacity().max(4);
            let bytes = more.saturating_mul(std::mem::size_of::<T>());
            self.cx
                .charge(at, bytes + if items.capacity() == 0 { ALLOC } else { 0 })?;
            items.reserve_exact(more);
        }
        Ok(())
    }

    fn items<'de, A: SeqAccess<'de>>(
        &self,
        seq: &mut A,
        item: &Type,
        most: Option<usize>,
    ) -> Result<Vec<Val>, A::Error> {
        let mut items = Vec::new();
        loop {
            let at = At {
                parent: Some(self.at),
                step: Step::Index(items.len()),
            };
            if most.is_some_and(|m| items.len() == m) {
                return match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(self.fail(format!(
                        "expected {} items, got more",
                        most.unwrap_or_default()
                    ))),
                    None => Ok(items),
                };
            }
            self.grow(&mut items, &at)?;
            match seq.next_element_seed(self.child(item, &at))? {
                Some(v) => items.push(v),
                None => return Ok(items),
            }
        }
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.expected())
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Val, E> {
        if let Some(inner) = self.some() {
            return self.wrap(self.child(&inner, self.at).visit_bool(b));
        }
        match self.ty {
            Type::Bool => Ok(Val::Bool(b)),
            _ => Err(self.wrong("a boolean")),
        }
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Val, E> {
        self.number(Number::Signed(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Val, E> {
        self.number(Number::Unsigned(n))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Val, E> {
        self.number(Number::Float(n))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Val, E> {
        self.text(Cow::Borrowed(s))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Val, E> {
        self.text(Cow::Owned(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Val, E> {
        match self.ty {
            Type::Option(_) => Ok(Val::Option(None)),
            _ => Err(self.wrong("null")),
        }
    }

    fn visit_none<E: de::Error>(self) -> Result<Val, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        if let Some(inner) = self.some() {
            return self.wrap(self.child(&inner, self.at).visit_seq(seq));
        }
        match self.ty {
            Type::List(l) if is_bytes(&l.ty()) => Err(self.wrong("an array")),
            Type::List(l) => Ok(Val::List(self.items(&mut seq, &l.ty(), None)?)),
            Type::FixedLengthList(l) => {
                let want = usize::try_from(l.len()).unwrap_or(usize::MAX);
                let items = self.items(&mut seq, &l.ty(), Some(want))?;
                if items.len() != want {
                    return Err(self.fail(format!("expected {want} items, got {}", items.len())));
                }
                Ok(Val::FixedLengthList(items))
            }
            Type::Tuple(t) => {
                let types: Vec<Type> = t.types().collect();
                let mut items = Vec::with_capacity(types.len());
                self.cx.charge(self.at, types.len() * VAL + ALLOC)?;
                for (i, ty) in types.iter().enumerate() {
                    let at = At {
                        parent: Some(self.at),
                        step: Step::Index(i),
                    };
                    match seq.next_element_seed(self.child(ty, &at))? {
                        Some(v) => items.push(v),
                        None => {
                            return Err(self.fail(format!(
                                "expected {} items, got {}",
                                types.len(),
                                items.len()
                            )));
                        }
                    }
                }
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    return Err(self.fail(format!("expected {} items, got more", types.len())));
                }
                Ok(Val::Tuple(items))
            }
            Type::Flags(f) => {
                let mut set: Vec<String> = Vec::new();
                loop {
                    let at = At {
                        parent: Some(self.at),
                        step: Step::Index(set.len()),
                    };
                    let Some(name) = seq.next_element::<Cow<'de, str>>().map_err(|_| {
                        self.cx
                            .fail::<A::Error>(&at, format!("expected one of {}", names(f.names())))
                    })?
                    else {
                        return Ok(Val::Flags(set));
                    };
                    let Some(known) = f.names().find(|n| *n == name) else {
                        return Err(self
                            .cx
                            .fail(&at, format!("expected one of {}", names(f.names()))));
                    };
                    if set.iter().any(|s| s == known) {
                        return Err(self.cx.fail(&at, format!("\"{known}\" is set twice")));
                    }
                    self.grow(&mut set, &at)?;
                    self.cx.charge(&at, known.len() + ALLOC)?;
                    set.push(known.to_string());
                }
            }
            Type::Map(m) => {
                let (key, val) = (m.key(), m.value());
                let mut pairs: Vec<(Val, Val)> = Vec::new();
                loop {
                    let at = At {
                        parent: Some(self.at),
                        step: Step::Index(pairs.len()),
                    };
                    self.grow(&mut pairs, &at)?;
                    let pair = Pair {
                        key: &key,
                        val: &val,
                        seed: self.child(self.ty, &at),
                    };
                    match seq.next_element_seed(pair)? {
                        Some(p) => pairs.push(p),
                        None => return Ok(Val::Map(pairs)),
                    }
                }
            }
            _ => Err(self.wrong("an array")),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val, A::Error> {
        if let Some(inner) = self.some() {
            return self.wrap(self.child(&inner, self.at).visit_map(map));
        }
        match self.ty {
            // An option of an option: `{"some": ...}`.
            Type::Option(o) => {
                let inner = o.ty();
                let key = map.next_key::<Cow<'de, str>>()?;
                if key.as_deref() != Some("some") {
                    return Err(self.fail(self.expected()));
                }
                let at = At {
                    parent: Some(self.at),
                    step: Step::Name("some"),
                };
                let v = map.next_value_seed(self.child(&inner, &at))?;
                if map.next_key::<IgnoredAny>()?.is_some() {
                    return Err(self.fail(self.expected()));
                }
                self.wrap(Ok(v))
            }
            Type::Record(r) => {
                let fields: Vec<(&str, Type)> = r.fields().map(|f| (f.name, f.ty)).collect();
                let mut got: Vec<Option<Val>> = vec![None; fields.len()];
                self.cx.charge(
                    self.at,
                    ALLOC
                        + fields.len() * std::mem::size_of::<(String, Val)>()
                        + fields.iter().map(|(n, _)| n.len() + ALLOC).sum::<usize>(),
                )?;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let at = At {
                        parent: Some(self.at),
                        step: Step::Name(&key),
                    };
                    let Some(i) = fields.iter().position(|(n, _)| *n == key) else {
                        return Err(self.cx.fail(
                            &at,
                            format!(
                                "unknown field; the fields are {}",
                                names(fields.iter().map(|(n, _)| n))
                            ),
                        ));
                    };
                    if got[i].is_some() {
                        return Err(self.cx.fail(&at, "given twice"));
                    }
                    got[i] = Some(map.next_value_seed(self.child(&fields[i].1, &at))?);
                }
                let mut out = Vec::with_capacity(fields.len());
                for ((name, ty), v) in fields.iter().zip(got) {
                    let v = match v {
                        Some(v) => v,
                        None if matches!(ty, Type::Option(_)) => Val::Option(None),
                        None => {
                            let at = At {
                                parent: Some(self.at),
                                step: Step::Name(name),
                            };
                            return Err(self.cx.fail(&at, "required field missing"));
                        }
                    };
                    out.push((name.to_string(), v));
                }
                Ok(Val::Record(out))
            }
            Type::Variant(v) => self.variant(v, map),
            Type::Result(r) => {
                let Some(side) = map.next_key::<Cow<'de, str>>()? else {
                    return Err(self.fail(self.expected()));
                };
                let (name, ty) = match &*side {
                    "ok" => ("ok", r.ok()),
                    "err" => ("err", r.err()),
                    _ => return Err(self.fail(self.expected())),
                };
                let at = At {
                    parent: Some(self.at),
                    step: Step::Name(name),
                };
                let payload = match ty {
                    Some(t) => {
                        self.cx.charge(&at, VAL + ALLOC)?;
                        Some(Box::new(map.next_value_seed(self.child(&t, &at))?))
                    }
                    None => match map.next_value::<Option<IgnoredAny>>()? {
                        None => None,
                        Some(_) => {
                            return Err(self
                                .cx
                                .fail(&at, "expected null: this side carries no value"));
                        }
                    },
                };
                if map.next_key::<IgnoredAny>()?.is_some() {
                    return Err(self.fail(self.expected()));
                }
                Ok(Val::Result(if name == "ok" {
                    Ok(payload)
                } else {
                    Err(payload)
                }))
            }
            Type::Map(m) if matches!(m.key(), Type::String) => {
                let val = m.value();
                let mut pairs: Vec<(Val, Val)> = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let at = At {
                        parent: Some(self.at),
                        step: Step::Name(&key),
                    };
                    self.grow(&mut pairs, &at)?;
                    self.cx.charge(&at, key.len() + ALLOC)?;
                    let v = map.next_value_seed(self.child(&val, &at))?;
                    pairs.push((Val::String(key.into_owned()), v));
                }
                Ok(Val::Map(pairs))
            }
            _ => Err(self.wrong("an object")),
        }
    }
}

impl Seed<'_> {
    /// `{"tag": CASE, "val": PAYLOAD}`. MCP's arguments arrive with their keys sorted, so
    /// `tag` comes first and the payload is read as its case's type; a caller that sends
    /// `val` first has it held as JSON until the tag names its type.
    fn variant<'de, A: MapAccess<'de>>(
        &self,
        v: &wasmtime::component::types::Variant,
        mut map: A,
    ) -> Result<Val, A::Error> {
        let cases: Vec<(&str, Option<Type>)> = v.cases().map(|c| (c.name, c.ty)).collect();
        let all = || names(cases.iter().map(|(n, _)| n));
        let tag_at = At {
            parent: Some(self.at),
            step: Step::Name("tag"),
        };
        let val_at = At {
            parent: Some(self.at),
            step: Step::Name("val"),
        };
        let mut case: Option<usize> = None;
        let mut held: Option<serde_json::Value> = None;
        let mut payload: Option<Option<Val>> = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "tag" => {
                    if case.is_some() {
                        return Err(self.cx.fail(&tag_at, "given twice"));
                    }
                    let tag = map.next_value::<Cow<'de, str>>().map_err(|_| {
                        self.cx
                            .fail::<A::Error>(&tag_at, format!("expected one of {}", all()))
                    })?;
                    let Some(i) = cases.iter().position(|(n, _)| *n == tag) else {
                        return Err(self
                            .cx
                            .fail(&tag_at, format!("unknown case; the cases are {}", all())));
                    };
                    case = Some(i);
                }
                "val" => {
                    if payload.is_some() || held.is_some() {
                        return Err(self.cx.fail(&val_at, "given twice"));
                    }
                    match case.map(|i| &cases[i].1) {
                        Some(Some(t)) => {
                            payload = Some(Some(map.next_value_seed(self.child(t, &val_at))?));
                        }
                        Some(None) => match map.next_value::<Option<IgnoredAny>>()? {
                            None => payload = Some(None),
                            Some(_) => {
                                return Err(self.cx.fail(&val_at, "this case carries no value"));
                            }
                        },
                        None => held = Some(map.next_value::<serde_json::Value>()?),
                    }
                }
                _ => {
                    let at = At {
                        parent: Some(self.at),
                        step: Step::Name(&key),
                    };
                    return Err(self
                        .cx
                        .fail(&at, "unknown field; a variant has tag and val"));
                }
            }
        }
        let Some(i) = case else {
            return Err(self.cx.fail(&tag_at, format!("expected one of {}", all())));
        };
        let (name, ty) = &cases[i];
        let value = match (ty, payload, held) {
            (_, Some(p), _) => p,
            (Some(t), None, Some(json)) => Some(
                self.child(t, &val_at)
                    .deserialize(json)
                    .map_err(<A::Error as de::Error>::custom)?,
            ),
            (Some(_), None, None) => {
                return Err(self.cx.fail(&val_at, "required for this case"));
            }
            (None, None, None | Some(serde_json::Value::Null)) => None,
            (None, None, Some(_)) => {
                return Err(self.cx.fail(&val_at, "this case carries no value"));
            }
        };
        self.cx.charge(self.at, name.len() + VAL + 2 * ALLOC)?;
        Ok(Val::Variant(name.to_string(), value.map(Box::new)))
    }
}

/// One `[key, value]` pair of a map written as an array.
struct Pair<'a> {
    key: &'a Type,
    val: &'a Type,
    seed: Seed<'a>,
}

impl<'de> DeserializeSeed<'de> for Pair<'_> {
    type Value = (Val, Val);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(Val, Val), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Pair<'_> {
    type Value = (Val, Val);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a [key, value] pair")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(Val, Val), A::Error> {
        let not_a_pair = || self.seed.fail::<A::Error>("expected a [key, value] pair");
        let key_at = At {
            parent: Some(self.seed.at),
            step: Step::Index(0),
        };
        let k = seq
            .next_element_seed(self.seed.child(self.key, &key_at))?
            .ok_or_else(not_a_pair)?;
        let val_at = At {
            parent: Some(self.seed.at),
            step: Step::Index(1),
        };
        let v = seq
            .next_element_seed(self.seed.child(self.val, &val_at))?
            .ok_or_else(not_a_pair)?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(not_a_pair());
        }
        Ok((k, v))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(Val, Val), A::Error> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(Val, Val), E> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(Val, Val), E> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(Val, Val), E> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(Val, Val), E> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(Val, Val), E> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(Val, Val), E> {
        Err(self.seed.fail("expected a [key, value] pair"))
    }
}
