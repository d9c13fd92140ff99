//! Mutations: byte-level edits for framing and escapes, and structure-aware edits of JSON
//! (whole documents or one line of a line-delimited stream) so that inputs get past the
//! parser into the code behind it.

use crate::rng::Rng;
use serde_json::{Value, json};

/// Tokens that tend to matter to the parsers under test.
const COMMON: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\0",
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"null",
    b"true",
    b"-0",
    b"1e999",
    b"-1",
    b"18446744073709551616",
    b"9007199254740993",
    b"\\u0000",
    b"\\ud800",
    b"\\udfff",
    b"\xff",
    b"\xc3",
    b"\xe2\x80\xa8",
    b"\x1b[",
    b"\x1b]0;",
    b"\x1b[2J",
    b"\x1bP",
    b"\x07",
    b"\x08",
    b"\r",
    b"..",
    b"/",
    b"//",
    b"%00",
    b"%2e%2e",
    b"~",
    b"*",
    b"?",
    b"#",
    b"@",
    b"::",
    b"[::1]",
    b"0x",
    b"\xf0\x9f\x98\x80",
];

fn interesting_value(rng: &mut Rng, dict: &[&[u8]]) -> Value {
    match rng.below(14) {
        0 => Value::Null,
        1 => json!(rng.chance(2)),
        2 => json!(rng.next_u64() as i64),
        3 => json!(
            *rng.pick(&[0i64, -1, 1, i64::MAX, i64::MIN, 255, 256, 65535, 65536])
                .unwrap_or(&0)
        ),
        4 => json!(
            *rng.pick(&[0.5f64, -0.0, 1e300, -1e300, f64::EPSILON])
                .unwrap_or(&0.0)
        ),
        5 => json!(u64::MAX),
        6 => json!(""),
        7 => json!("x".repeat(1 << rng.below(17))),
        8 => json!([]),
        9 => json!({}),
        10 => {
            let mut v = json!("deep");
            for _ in 0..rng.below(200) {
                v = json!([v]);
            }
            v
        }
        _ => {
            let token = rng
                .pick(dict)
                .or_else(|| rng.pick(COMMON))
                .copied()
                .unwrap_or(b"x");
            json!(String::from_utf8_lossy(token))
        }
    }
}

/// Every node of `v` by path index, depth first.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.values().map(count).sum(),
        _ => 0,
    }
}

fn nth(v: &mut Value, mut n: usize) -> Option<&mut Value> {
    if n == 0 {
        return Some(v);
    }
    n -= 1;
    let children: Vec<&mut Value> = match v {
        Value::Array(a) => a.iter_mut().collect(),
        Value::Object(o) => o.values_mut().collect(),
        _ => return None,
    };
    for child in children {
        let c = count(child);
        if n < c {
            return nth(child, n);
        }
        n -= c;
    }
    None
}

fn mutate_json(v: &mut Value, rng: &mut Rng, dict: &[&[u8]], donor: Option<&Value>) {
    let total = count(v);
    let Some(node) = nth(v, rng.below(total)) else {
        return;
    };
    match rng.below(8) {
        0 | 1 => *node = interesting_value(rng, dict),
        2 => {
            if let Some(d) = donor {
                let n = rng.below(count(d));
                let mut d = d.clone();
                if let Some(part) = nth(&mut d, n) {
                    *node = part.take();
                }
            }
        }
        3 => match node {
            Value::Array(a) if !a.is_empty() => {
                let i = rng.below(a.len());
                if rng.chance(2) {
                    a.remove(i);
                } else {
                    let dup = a[i].clone();
                    a.insert(i, dup);
                }
            }
            Value::Object(o) if !o.is_empty() => {
                let key = o
                    .keys()
                    .nth(rng.below(o.len()))
                    .cloned()
                    .unwrap_or_default();
                if rng.chance(2) {
                    o.remove(&key);
                } else {
                    let val = o.get(&key).cloned().unwrap_or(Value::Null);
                    o.insert(format!("{key}{}", rng.below(3)), val);
                }
            }
            _ => *node = json!([node.take()]),
        },
        4 => {
            if let Value::String(s) = node {
                let token = rng
                    .pick(dict)
                    .or_else(|| rng.pick(COMMON))
                    .copied()
                    .unwrap_or(b"");
                let token = String::from_utf8_lossy(token);
                let at = (0..=s.len())
                    .filter(|i| s.is_char_boundary(*i))
                    .nth(rng.below(s.len() + 1))
                    .unwrap_or(0);
                s.insert_str(at, &token);
            } else {
                *node = json!(node.to_string());
            }
        }
        5 => {
            if let Value::Object(o) = node {
                let token = rng
                    .pick(dict)
                    .or_else(|| rng.pick(COMMON))
                    .copied()
                    .unwrap_or(b"k");
                o.insert(
                    String::from_utf8_lossy(token).into_owned(),
                    interesting_value(rng, dict),
                );
            } else if let Value::Array(a) = node {
                a.push(interesting_value(rng, dict));
            } else {
                *node = interesting_value(rng, dict);
            }
        }
        6 => {
            if let Value::String(s) = node {
                let keep = rng.below(s.len() + 1);
                let at = (0..=keep)
                    .rev()
                    .find(|i| s.is_char_boundary(*i))
                    .unwrap_or(0);
                s.truncate(at);
            }
        }
        _ => {
            if let Value::Number(n) = node {
                let f = n.as_f64().unwrap_or(0.0);
                *node = json!(
                    *rng.pick(&[f + 1.0, f - 1.0, -f, f * 1e10, f.floor()])
                        .unwrap_or(&f)
                );
            } else {
                *node = interesting_value(rng, dict);
            }
        }
    }
}

fn mutate_bytes(data: &mut Vec<u8>, rng: &mut Rng, dict: &[&[u8]], donor: &[u8]) {
    let len = data.len();
    match rng.below(9) {
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.next_u64() as u8;
        }
        2 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(16)).min(len);
            data.drain(a..b);
        }
        3 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(64)).min(len);
            let part = data[a..b].to_vec();
            let at = rng.below(len + 1);
            for _ in 0..=rng.below(4) {
                data.splice(at..at, part.iter().copied());
            }
        }
        4 if !donor.is_empty() => {
            let a = rng.below(donor.len());
            let b = (a + 1 + rng.below(256)).min(donor.len());
            let at = rng.below(len + 1);
            data.splice(at..at, donor[a..b].iter().copied());
        }
        5 if len > 0 => data.truncate(rng.below(len)),
        6 if len > 1 => {
            let a = rng.below(len);
            let b = rng.below(len);
            data.swap(a, b);
        }
        _ => {
            let token = rng
                .pick(dict)
                .or_else(|| rng.pick(COMMON))
                .copied()
                .unwrap_or(b"");
            let at = rng.below(len + 1);
            data.splice(at..at, token.iter().copied());
        }
    }
}

/// One to a few edits of `input`; `donor` is another corpus entry to splice from.
pub fn mutate(input: &[u8], rng: &mut Rng, dict: &[&[u8]], donor: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        if rng.chance(2)
            && let Some(v) = json_edit(&data, rng, dict, donor)
        {
            data = v;
            continue;
        }
        mutate_bytes(&mut data, rng, dict, donor);
    }
    if data.len() > 1 << 20 {
        data.truncate(1 << 20);
    }
    data
}

/// A structure-aware edit: of the whole input when it is one JSON document, else of one of
/// its lines that is.
fn json_edit(data: &[u8], rng: &mut Rng, dict: &[&[u8]], donor: &[u8]) -> Option<Vec<u8>> {
    let donor_value = serde_json::from_slice::<Value>(donor).ok().or_else(|| {
        let lines: Vec<&[u8]> = donor.split(|b| *b == b'\n').collect();
        serde_json::from_slice(rng.pick(&lines)?).ok()
    });
    if let Ok(mut v) = serde_json::from_slice::<Value>(data) {
        mutate_json(&mut v, rng, dict, donor_value.as_ref());
        return serde_json::to_vec(&v).ok();
    }
    let mut lines: Vec<Vec<u8>> = data.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|i| serde_json::from_slice::<Value>(&lines[*i]).is_ok())
        .collect();
    let i = *rng.pick(&candidates)?;
    let mut v: Value = serde_json::from_slice(&lines[i]).ok()?;
    mutate_json(&mut v, rng, dict, donor_value.as_ref());
    lines[i] = serde_json::to_vec(&v).ok()?;
    if rng.chance(8) {
        let dup = lines[i].clone();
        lines.insert(i, dup);
    }
    Some(lines.join(&b'\n'))
}
