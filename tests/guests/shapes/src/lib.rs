//! Plain exported functions of every WIT type, for the host's schema and argument checks.

// The exports wit-bindgen generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

wit_bindgen::generate!({ world: "shapes-world", path: "wit" });

use exports::test::shapes::shapes::{Color, Guest as Shapes, Packet, Perms, Point, Shape};

struct Component;

impl Guest for Component {
    fn ping() -> String {
        "pong".into()
    }

    fn echo(text: String) -> String {
        text
    }
}

impl Shapes for Component {
    fn move_point(p: Point, dx: i32, dy: i32) -> Point {
        Point {
            x: p.x.wrapping_add(dx),
            y: p.y.wrapping_add(dy),
            label: p.label,
        }
    }

    fn area(s: Shape) -> f64 {
        match s {
            Shape::Circle(r) => std::f64::consts::PI * r * r,
            Shape::Rect((w, h)) => f64::from(w) * f64::from(h),
            Shape::Dot => 0.0,
        }
    }

    fn describe(c: Color, f: Perms, tags: Vec<String>) -> String {
        let mut set = Vec::new();
        for (flag, name) in [
            (Perms::READ, "read"),
            (Perms::WRITE, "write"),
            (Perms::EXEC, "exec"),
        ] {
            if f.contains(flag) {
                set.push(name);
            }
        }
        format!("{c:?} [{}] {}", set.join(","), tags.join("+"))
    }

    fn widths(
        a: u8,
        b: i8,
        c: u16,
        d: i16,
        e: u32,
        f: i64,
        g: u64,
    ) -> (u8, i8, u16, i16, u32, i64, u64) {
        (a, b, c, d, e, f, g)
    }

    fn twice(n: Option<u16>) -> Option<u32> {
        n.map(|n| u32::from(n) * 2)
    }

    fn next_char(c: char, flag: bool) -> char {
        if flag {
            char::from_u32(c as u32 + 1).unwrap_or(c)
        } else {
            c
        }
    }

    fn check(message: String) -> Result<String, String> {
        if message.is_empty() {
            Ok("fine".into())
        } else {
            Err(message)
        }
    }

    fn ping() {}

    fn reverse_bytes(data: Vec<u8>) -> (Vec<u8>, u32) {
        let n = u32::try_from(data.len()).unwrap_or(u32::MAX);
        (data.into_iter().rev().collect(), n)
    }

    fn ratio(a: f64, b: f32) -> f64 {
        a / f64::from(b)
    }

    fn maybe(v: Option<Option<String>>) -> (String, Option<Option<String>>) {
        let said = match &v {
            None => "none".to_string(),
            Some(None) => "some(none)".to_string(),
            Some(Some(s)) => format!("some(some({s}))"),
        };
        (said, v)
    }

    fn pack(p: Packet) -> Packet {
        Packet {
            perms: p.perms | Perms::EXEC,
            payload: p.payload.into_iter().map(|b| b.wrapping_add(1)).collect(),
            notes: p.notes,
        }
    }

    fn count_bytes(data: Vec<u8>) -> u32 {
        count(data.len())
    }

    fn count_text(text: String) -> u32 {
        count(text.len())
    }

    fn count_strings(items: Vec<String>) -> u32 {
        count(items.len())
    }

    fn count_points(points: Vec<Point>) -> u32 {
        count(points.len())
    }

    fn count_cells(rows: Vec<Vec<u32>>) -> u32 {
        count(rows.iter().map(Vec::len).sum())
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

export!(Component);
