//! The linear memory a component needs before its first instruction: the largest initial
//! size among the memories its core modules define. A `limits.memory` below it can never
//! start the plugin, and wasmtime's own refusal ("module memory does not fit in pooling
//! allocator requirements") says nothing of the manifest key to raise; this says how much.

use wasmparser::{Parser, Payload};

/// Bytes of the largest initial memory defined by any core module of `bytes` (nested modules
/// included), or `None` when the binary cannot be read (the compiler reports that better).
pub fn initial_memory(bytes: &[u8]) -> Option<u64> {
    let mut largest = 0u64;
    for payload in Parser::new(0).parse_all(bytes) {
        if let Payload::MemorySection(memories) = payload.ok()? {
            for memory in memories {
                let memory = memory.ok()?;
                let size = memory.initial.saturating_mul(u64::from(memory.page_size()));
                largest = largest.max(size);
            }
        }
    }
    Some(largest)
}

/// The load error for a plugin whose initial memory exceeds its `limits.memory`, or `None`.
pub fn check(bytes: &[u8], limit: u64) -> Option<String> {
    let needed = initial_memory(bytes)?;
    (needed > limit).then(|| {
        // Round up to whole MiB: what an admin writes in the manifest.
        let mib = needed.div_ceil(1024 * 1024);
        format!(
            "needs {mib} MiB of memory to start (its initial linear memory) but limits.memory is {}; set limits = {{ memory = \"{mib}MiB\" }} or more in its [[plugin]] entry",
            bytesize::ByteSize::b(limit).display().iec()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{check, initial_memory};

    /// A component wrapping one core module with a 3-page (192 KiB) memory.
    fn component_with_memory(pages: u32) -> Vec<u8> {
        let wat = format!("(component (core module (memory {pages})))");
        wat::parse_str(wat).expect("valid component text")
    }

    #[test]
    fn reads_the_largest_initial_memory_of_nested_modules() {
        assert_eq!(initial_memory(&component_with_memory(3)), Some(3 * 65536));
        assert_eq!(initial_memory(b"not wasm"), None);
    }

    #[test]
    fn a_limit_below_the_initial_memory_names_the_size_to_set() {
        let bytes = component_with_memory(300); // 18.75 MiB
        let error = check(&bytes, 16 * 1024 * 1024).expect("too small");
        assert!(error.contains("needs 19 MiB"), "{error}");
        assert!(error.contains("memory = \"19MiB\""), "{error}");
        assert!(check(&bytes, 32 * 1024 * 1024).is_none());
    }
}
