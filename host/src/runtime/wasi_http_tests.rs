//! Components built for other hosts import `wasi:http` at whatever 0.2.x their toolchain
//! had (Wassette's examples: 0.2.4); the linker serves every 0.2.x from the one
//! implementation it holds.

use super::engine::Runtime;

#[test]
fn a_component_importing_an_older_wasi_http_links() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let runtime = Runtime::new(dir.path().to_path_buf(), 16 << 20, 16, None).expect("a runtime");
    for version in ["0.2.0", "0.2.4", "0.2.12"] {
        let wat = format!(
            r#"(component
                (import "wasi:http/types@{version}" (instance
                    (export "fields" (type $f (sub resource)))
                    (export "[constructor]fields" (func (result (own $f))))
                    (export "outgoing-request" (type (sub resource)))
                ))
                (import "wasi:http/outgoing-handler@{version}" (instance))
            )"#
        );
        let bytes = wat::parse_str(&wat).expect("valid component text");
        let component =
            wasmtime::component::Component::new(&runtime.engine, &bytes).expect("a component");
        if let Err(e) = runtime.linker.instantiate_pre(&component) {
            panic!("wasi:http@{version} does not link: {e}");
        }
    }
}
