//! `warden-fuzz`: run the fuzz targets for a time budget each, or replay saved inputs.
//!
//! ```text
//! warden-fuzz [--seconds N] [--seed S] [TARGET...]   fuzz (all targets when none named)
//! warden-fuzz --replay TARGET FILE...                 run saved inputs once
//! warden-fuzz --list
//! ```
//! Exit status 1 when any input crashed, 3 when one hung (its input is saved first).

use std::path::PathBuf;
use std::time::{Duration, Instant};
use warden_fuzz::targets::{self, ALL};
use warden_fuzz::{Target, fuzz, quiet_panics, run_once};

fn usage() -> ! {
    eprintln!(
        "usage: warden-fuzz [--seconds N] [--seed S] [TARGET...] | --replay TARGET FILE... | --list"
    );
    std::process::exit(2)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut args = std::env::args().skip(1);
    let mut seconds = 20u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut chosen: Vec<&'static Target> = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" => {
                for t in ALL {
                    println!("{:12} {}", t.name, t.about);
                }
                return;
            }
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--seed" => {
                seed = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--replay" => {
                let target = args
                    .next()
                    .and_then(|n| targets::named(&n))
                    .unwrap_or_else(|| usage());
                quiet_panics();
                let mut failed = false;
                for file in args.by_ref() {
                    let input = std::fs::read(&file).unwrap_or_else(|e| {
                        eprintln!("cannot read {file}: {e}");
                        std::process::exit(2)
                    });
                    match run_once(target, &input) {
                        Ok(_) => println!("{file}: ok"),
                        Err(m) => {
                            println!("{file}: CRASH {m}");
                            failed = true;
                        }
                    }
                }
                std::process::exit(i32::from(failed));
            }
            name => chosen.push(targets::named(name).unwrap_or_else(|| {
                eprintln!("no fuzz target {name:?}; --list names them");
                usage()
            })),
        }
    }
    if chosen.is_empty() {
        chosen = ALL.iter().collect();
    }
    quiet_panics();
    println!("seed {seed}, {seconds} s per target");
    let mut crashes = 0;
    let started = Instant::now();
    for target in chosen {
        let report = fuzz(
            target,
            Duration::from_secs(seconds),
            seed,
            &root.join("corpus").join(target.name),
            &root.join("artifacts").join(target.name),
            Duration::from_secs(30),
        );
        println!(
            "{:12} {:>9} runs  {:>7.0}/s  corpus {:>5}  slowest {:>6.1} ms  contained {:>5}  crashes {}",
            target.name,
            report.executions,
            report.executions as f64 / seconds.max(1) as f64,
            report.corpus,
            report.slowest.as_secs_f64() * 1000.0,
            report.contained,
            report.crashes.len()
        );
        crashes += report.crashes.len();
    }
    println!("done in {:.0} s", started.elapsed().as_secs_f64());
    if crashes > 0 {
        eprintln!("{crashes} crashing inputs; replay one with: warden-fuzz --replay TARGET FILE");
        std::process::exit(1);
    }
}
