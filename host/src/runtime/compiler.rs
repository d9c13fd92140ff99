//! The engine settings that shape compiled code, in one place: the runtime builds its
//! engine from them, and `build.rs` precompiles the built-in plugins with the same ones, so
//! the embedded machine code is accepted by this binary's engine (wasmtime checks the
//! settings and the CPU features before it uses precompiled code, and on a mismatch the
//! plugin is compiled at start as any other).
//!
//! Memory layout (the pooling allocator, the memory limit) is set by the runtime and does
//! not change compiled code.

/// The compiler configuration of every engine that runs plugins: Cranelift, optimizing.
pub fn config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    config
}

/// The baseline tier a large component starts on while [`config`]'s code compiles
/// (`tiers.rs`): Winch, a single-pass compiler, makes machine code about five times faster
/// than Cranelift (12 MiB of JavaScript component: 1.2 s against 6 s on two cores) and the
/// code runs slower. The same interruption, so time limits hold on either tier.
pub fn baseline_config() -> wasmtime::Config {
    let mut config = config();
    config.strategy(wasmtime::Strategy::Winch);
    config
}
