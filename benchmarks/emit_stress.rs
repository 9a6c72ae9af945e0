//! Emission stress: many SPIR-V emissions of varied kernels in one process, every module checked
//! with `spirv-val` (from SPIRV-Tools), and a sample re-emitted at the end and compared byte for byte
//! with its first emission (a back end that carries state between emissions shows up as a
//! difference even where the module is still valid).
//!
//!     cargo run --release --example emit_stress -- [emissions] [seed]
//!     cargo run --release --example emit_stress -- --show <index> [seed]   # one kernel's LLVM IR
//!
//! Defaults: 10000 emissions, seed 1. Validation runs on worker threads (one `spirv-val` process per
//! module, reading it from stdin) while emission goes on; the emission time is reported separately.
//! Emission goes through the SPIR-V helper processes (`rust/src/codegen/emit/spirv_helper/`);
//! `NUMBA_EXT_SPIRV_EMIT=forkserver` selects the mode that forks each emission from the helper.

#[path = "kernel_gen.rs"]
mod kernel_gen;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kernel_gen::{kernel, Kernel, Rng};
use numba_ext_core::codegen::{self, DeviceCaps};
use numba_ext_core::target::Target;

fn compile(k: &Kernel, caps: &DeviceCaps) -> Result<Vec<u8>, String> {
    match k {
        Kernel::Spec(s) => codegen::compile(s, caps),
        Kernel::Function(f) => codegen::compile_function(f, caps),
    }
    .map(|b| b.bytes)
    .map_err(|e| e.to_string())
}

/// `spirv-val` on one module; the error text when it is rejected.
fn spirv_val(bytes: &[u8]) -> Result<(), String> {
    let mut child = Command::new("spirv-val")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run spirv-val (install spirv-tools): {e}"))?;
    child.stdin.take().unwrap().write_all(bytes).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// The LLVM IR of kernel `index` of the sequence: before optimisation for dataflow kernels, after it
/// (when it emits) for control-flow kernels.
fn show(index: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    for i in 0..index {
        kernel(&mut rng, i);
    }
    let caps = DeviceCaps::new(Target::SpirV, true, "stress".into());
    let ir = match kernel(&mut rng, index) {
        Kernel::Spec(s) => codegen::llvm_ir(&s, codegen::Flavor::Spirv),
        Kernel::Function(f) => codegen::compile_function(&f, &caps).map(|b| b.llvm_ir),
    };
    match ir {
        Ok(ir) => println!("{ir}"),
        Err(e) => println!("kernel {index}: {e}"),
    }
}

type Job = (usize, Vec<u8>);
type Verdict = (usize, Result<(), String>);

/// `workers` threads running `spirv-val` on the modules sent to the returned sender.
fn start_validators(
    workers: usize,
) -> (mpsc::SyncSender<Job>, mpsc::Receiver<Verdict>, Vec<std::thread::JoinHandle<()>>) {
    let (tx, rx) = mpsc::sync_channel::<Job>(4 * workers);
    let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
    let (res_tx, res_rx) = mpsc::channel::<Verdict>();
    let handles = (0..workers)
        .map(|_| {
            let rx = rx.clone();
            let res_tx = res_tx.clone();
            std::thread::spawn(move || loop {
                let job = rx.lock().unwrap().recv();
                let Ok((i, bytes)) = job else { break };
                res_tx.send((i, spirv_val(&bytes))).unwrap();
            })
        })
        .collect();
    (tx, res_rx, handles)
}

/// Emit the sample again, after everything else was emitted: a back end that carries state between
/// emissions gives different bytes. Returns the number of mismatches.
fn check_determinism(sample: &[(usize, Vec<u8>, Kernel)], caps: &DeviceCaps, failures: &mut Vec<String>) -> usize {
    let mut mismatches = 0;
    for (i, first, k) in sample {
        match compile(k, caps) {
            Ok(again) if &again == first => {}
            Ok(_) => {
                mismatches += 1;
                failures.push(format!("kernel {i}: re-emission differs from the first emission"));
            }
            Err(e) => failures.push(format!("kernel {i}: re-emission failed: {e}")),
        }
    }
    mismatches
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--show") {
        let index = std::env::args().nth(2).and_then(|a| a.parse().ok()).expect("--show <index> [seed]");
        let seed = std::env::args().nth(3).and_then(|a| a.parse().ok()).unwrap_or(1);
        return show(index, seed);
    }
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map(|a| a.parse().expect("emissions: a number")).unwrap_or(10_000);
    let seed: u64 = args.next().map(|a| a.parse().expect("seed: a number")).unwrap_or(1);
    let caps = DeviceCaps::new(Target::SpirV, true, "stress".into());
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    let (tx, res_rx, handles) = start_validators(workers);

    let mut sample = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut emit_time = Duration::ZERO;
    let start = Instant::now();
    let mut rng = Rng::new(seed);
    for i in 0..count {
        let k = kernel(&mut rng, i);
        let t0 = Instant::now();
        let r = compile(&k, &caps);
        emit_time += t0.elapsed();
        match r {
            Ok(bytes) => {
                if i % 97 == 0 {
                    sample.push((i, bytes.clone(), k));
                }
                tx.send((i, bytes)).unwrap();
            }
            Err(e) => failures.push(format!("kernel {i}: emission failed: {e}")),
        }
        if (i + 1) % 1000 == 0 {
            eprintln!("{} emitted ({:.1} s)", i + 1, start.elapsed().as_secs_f64());
        }
    }
    drop(tx);
    let mut validated = 0;
    for (i, r) in res_rx {
        validated += 1;
        if let Err(e) = r {
            failures.push(format!("kernel {i}: spirv-val: {}", e.trim()));
        }
    }
    handles.into_iter().for_each(|h| h.join().unwrap());
    let mismatches = check_determinism(&sample, &caps, &mut failures);
    let total = start.elapsed();
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    println!(
        "emissions: {count}  validated by spirv-val: {validated}  failures: {}  re-emitted: {} (mismatches {mismatches})",
        failures.len(),
        sample.len()
    );
    let per_kernel = emit_time.as_secs_f64() * 1e3 / count.max(1) as f64;
    println!(
        "time: {:.1} s total, {:.1} s in emission ({per_kernel:.2} ms per kernel), {workers} validator threads",
        total.as_secs_f64(),
        emit_time.as_secs_f64(),
    );
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
