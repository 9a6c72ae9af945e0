//! SPIR-V emission through helper processes: many emissions in one process stay valid, a back-end
//! abort, a killed helper and a timeout each end as an error or a transparent restart, never as a
//! crash or hang of this process.
//!
//! The tests of this file share the helpers of this process and some change its environment, so
//! they run one at a time (`SERIAL`).

#[allow(dead_code)]
#[path = "../../benchmarks/kernel_gen.rs"]
mod kernel_gen;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use inkwell::context::Context;
use kernel_gen::{kernel, Kernel, Rng};
use numba_ext_core::codegen::emit::spirv_helper;
use numba_ext_core::codegen::{self, DeviceCaps, Flavor};
use numba_ext_core::ir::{BinaryOp, DType, KernelSpec, Node, Op, Param, ParamKind};
use numba_ext_core::target::Target;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn caps() -> DeviceCaps {
    DeviceCaps::new(Target::SpirV, true, "test".into())
}

fn compile(k: &Kernel) -> Result<Vec<u8>, String> {
    match k {
        Kernel::Spec(s) => codegen::compile(s, &caps()),
        Kernel::Function(f) => codegen::compile_function(f, &caps()),
    }
    .map(|b| b.bytes)
    .map_err(|e| e.to_string())
}

fn spirv_val(bytes: &[u8]) -> Result<(), String> {
    let mut child = Command::new("spirv-val")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spirv-val must be installed (Debian package spirv-tools): {e}"))?;
    child.stdin.take().unwrap().write_all(bytes).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// The first kernel of the generated sequence (a small valid dataflow kernel).
fn small_kernel() -> Kernel {
    kernel(&mut Rng::new(7), 0)
}

/// 1,000 emissions of varied kernels in this process, every module checked with `spirv-val` (on
/// worker threads while emission goes on), then a sample emitted again and compared byte for byte.
#[test]
fn a_thousand_emissions_in_one_process_all_validate() {
    let _s = serial();
    const N: usize = 1000;
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).min(4);
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(64);
    let rx = std::sync::Arc::new(Mutex::new(rx));
    let validators: Vec<_> = (0..workers)
        .map(|_| {
            let rx = rx.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                loop {
                    let job = rx.lock().unwrap().recv();
                    let Ok((i, bytes)) = job else { break };
                    if let Err(e) = spirv_val(&bytes) {
                        failures.push(format!("kernel {i}: {}", e.trim()));
                    }
                }
                failures
            })
        })
        .collect();
    let t0 = Instant::now();
    let mut rng = Rng::new(2024);
    let mut failures = Vec::new();
    let mut sample = Vec::new();
    for i in 0..N {
        let k = kernel(&mut rng, i);
        match compile(&k) {
            Ok(bytes) => {
                if i % 100 == 0 {
                    sample.push((k, bytes.clone()));
                }
                tx.send((i, bytes)).unwrap();
            }
            Err(e) => failures.push(format!("kernel {i}: {e}")),
        }
    }
    drop(tx);
    let emitted = t0.elapsed();
    for v in validators {
        failures.extend(v.join().unwrap());
    }
    for (k, first) in &sample {
        if compile(k).as_ref() != Ok(first) {
            failures.push("a re-emitted kernel differs from its first emission".into());
        }
    }
    eprintln!(
        "{N} emissions in {:.1} s ({:.1} ms each), validated in {:.1} s",
        emitted.as_secs_f64(),
        emitted.as_secs_f64() * 1e3 / N as f64,
        t0.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{} failures, first: {:#?}", failures.len(), &failures[..failures.len().min(10)]);
}

/// A module the SPIR-V back end aborts on (`LLVM ERROR`, then `abort`): 128-bit integers need an
/// extension the target does not enable.
fn i128_module(ctx: &Context) -> inkwell::module::Module<'_> {
    let m = ctx.create_module("bad");
    m.set_triple(&inkwell::targets::TargetTriple::create(Flavor::Spirv.triple()));
    let ptr = ctx.ptr_type(inkwell::AddressSpace::from(1u16));
    let f = m.add_function("k_bad", ctx.void_type().fn_type(&[ptr.into()], false), None);
    f.set_call_conventions(codegen::intrinsics::CC_SPIR_KERNEL);
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    let p = f.get_nth_param(0).unwrap().into_pointer_value();
    let i128t = ctx.i128_type();
    let v = b.build_load(i128t, p, "v").unwrap().into_int_value();
    let w = b.build_int_mul(v, v, "w").unwrap();
    b.build_store(p, w).unwrap();
    b.build_return(None).unwrap();
    m
}

#[test]
fn a_back_end_abort_is_an_error_and_emission_goes_on() {
    let _s = serial();
    let before = compile(&small_kernel()).expect("a valid kernel emits");
    let err = {
        let _llvm = codegen::emit::CODEGEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let ctx = Context::create();
        let m = i128_module(&ctx);
        codegen::emit::emit(&m, Flavor::Spirv, "", None).expect_err("the back end cannot emit i128").to_string()
    };
    assert!(err.contains("SPIR-V back end failed"), "{err}");
    assert!(err.contains("LLVM ERROR") && err.contains("OpTypeInt"), "the back end's message is kept: {err}");
    assert!(err.contains("NUMBA_EXT_DUMP_DIR"), "{err}");
    // the same kernel as before, still emitted, still identical
    assert_eq!(compile(&small_kernel()).unwrap(), before);
    spirv_val(&before).unwrap();
}

#[test]
fn a_killed_helper_is_replaced() {
    let _s = serial();
    let first = compile(&small_kernel()).unwrap();
    let pids = spirv_helper::helper_pids();
    assert!(!pids.is_empty(), "a helper is kept between emissions");
    for &pid in &pids {
        assert_ne!(pid, std::process::id());
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    // the helpers are gone before the next request
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(compile(&small_kernel()).unwrap(), first, "a new helper emits the same module");
    let now = spirv_helper::helper_pids();
    assert!(now.iter().all(|p| !pids.contains(p)), "killed helpers were replaced: {pids:?} -> {now:?}");
}

#[test]
fn a_timeout_stops_the_helper_and_is_an_error() {
    let _s = serial();
    compile(&small_kernel()).unwrap();
    std::env::set_var("NUMBA_EXT_EMIT_TIMEOUT", "0.000001");
    let err = compile(&small_kernel());
    std::env::remove_var("NUMBA_EXT_EMIT_TIMEOUT");
    let err = err.expect_err("no helper answers within a microsecond");
    assert!(err.contains("did not finish") && err.contains("NUMBA_EXT_EMIT_TIMEOUT"), "{err}");
    let bytes = compile(&small_kernel()).expect("emission works again with the default timeout");
    spirv_val(&bytes).unwrap();
}

/// The fork-server mode: each module is emitted by a child forked from the single-threaded helper.
#[test]
fn forkserver_mode_emits_valid_modules() {
    let _s = serial();
    std::env::set_var("NUMBA_EXT_SPIRV_EMIT", "forkserver");
    let mut rng = Rng::new(99);
    let results: Vec<_> = (0..30).map(|i| compile(&kernel(&mut rng, i))).collect();
    std::env::remove_var("NUMBA_EXT_SPIRV_EMIT");
    for (i, r) in results.into_iter().enumerate() {
        let bytes = r.unwrap_or_else(|e| panic!("kernel {i}: {e}"));
        spirv_val(&bytes).unwrap_or_else(|e| panic!("kernel {i}: {e}"));
    }
}

/// `out = z | z * max(z, z)` with `z` a bool widened to int16: `instcombine` turns it into a one-bit
/// bit reverse, which the SPIR-V back end cannot emit (found by `benchmarks/emit_stress.rs`).
#[test]
fn bool_arithmetic_that_becomes_a_one_bit_bitreverse_emits() {
    let _s = serial();
    let n = |op, dtype| Node { op, dtype };
    let arr =
        |name: &str, dtype| Param { name: name.into(), kind: ParamKind::Array { dtype, ndim: 1, contiguous: true } };
    let spec = KernelSpec {
        name: "k_bool_rev".into(),
        ndim: 1,
        params: vec![arr("b", DType::Bool), arr("out", DType::I16)],
        nodes: vec![
            n(Op::Load { param: 0 }, DType::Bool),
            n(Op::Cast { arg: 0 }, DType::I16),
            n(Op::Binary { op: BinaryOp::Max, lhs: 1, rhs: 1 }, DType::I16),
            n(Op::Binary { op: BinaryOp::Mul, lhs: 1, rhs: 2 }, DType::I16),
            n(Op::Binary { op: BinaryOp::Or, lhs: 1, rhs: 3 }, DType::I16),
            n(Op::Store { param: 1, value: 4 }, DType::I16),
        ],
    };
    let bin = codegen::compile(&spec, &caps()).unwrap();
    assert!(!bin.llvm_ir.contains("bitreverse"), "{}", bin.llvm_ir);
    assert!(bin.llvm_ir.contains("zext i1"), "{}", bin.llvm_ir);
    spirv_val(&bin.bytes).unwrap();
}
