//! A component in the style of components built for other MCP hosts: an exported interface,
//! configuration through `wasi:config/store` (the 0.2.0-draft published examples import), settings
//! through environment variables.

// The exports wit-bindgen generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

wit_bindgen::generate!({ world: "greeter-world", path: "wit", generate_all });

use exports::example::greeter::greeter::Guest;
use wasi::config::store;

struct Greeter;

impl Guest for Greeter {
    fn greet(name: String) -> Result<String, String> {
        let greeting = store::get("greeting")
            .map_err(|e| format!("config: {e:?}"))?
            .ok_or("no greeting configured: set the config key greeting")?;
        let lang =
            std::env::var("GREETER_LANG").map_err(|_| "GREETER_LANG is not set".to_string())?;
        Ok(format!("{greeting}, {name}! ({lang})"))
    }

    fn api_base() -> Result<String, String> {
        std::env::var("API_BASE").map_err(|_| "API_BASE is not set".to_string())
    }
}

export!(Greeter);
