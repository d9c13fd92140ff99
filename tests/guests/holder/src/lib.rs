//! Exports a function whose parameter is a resource handle: no tool can take it, so the
//! host must refuse the component at load, naming the function.

// The exports wit-bindgen generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

wit_bindgen::generate!({ world: "holder", path: "wit" });

use exports::test::holder::counters::{CounterBorrow, Guest, GuestCounter};

struct Component;

struct Count(u32);

impl GuestCounter for Count {}

impl Guest for Component {
    type Counter = Count;

    fn peek(c: CounterBorrow<'_>) -> u32 {
        c.get::<Count>().0
    }
}

export!(Component);
