//! Every seed and every saved input (`fuzz/corpus/<target>/`, which holds the inputs that
//! once crashed) runs through its target once, as part of the ordinary test suite.

use warden_fuzz::targets::ALL;
use warden_fuzz::{quiet_panics, read_dir_inputs, run_once};

#[test]
fn every_seed_and_saved_input_passes() {
    quiet_panics();
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut failures = Vec::new();
    for target in ALL {
        let mut inputs = (target.seeds)();
        inputs.extend(read_dir_inputs(&corpus.join(target.name)));
        for input in &inputs {
            if let Err(message) = run_once(target, input) {
                failures.push(format!(
                    "{}: {message}\n  input: {:?}",
                    target.name,
                    String::from_utf8_lossy(input)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
