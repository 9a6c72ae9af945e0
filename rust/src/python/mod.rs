//! The Python extension module `numba_ext._core`: the only place pyo3 appears.

mod capi;
mod compiler;
mod dlpack;
mod errors;
mod fast_path;
mod half_abi;
mod jit;
mod kernel_launch;
mod kernel_spec;
mod known_calls;
mod native;
mod nrt;
mod plan_run;
mod program_cache;
mod queues;
mod runtime;

use pyo3::prelude::*;

use runtime::{PyAllocation, PyContext, PyDevice, PyQueue};

/// All root devices, in discovery order.
#[pyfunction]
fn get_devices() -> PyResult<Vec<PyDevice>> {
    Ok(crate::runtime::devices()?.iter().map(|d| PyDevice { inner: d.clone() }).collect())
}

/// Number of USM allocations alive in this process.
#[pyfunction]
fn _live_allocations() -> usize {
    crate::runtime::live_allocations()
}

/// Number of queues that may have commands running that nothing waited for.
#[pyfunction]
fn _unsettled_queues() -> usize {
    crate::runtime::unsettled_queues()
}

/// Number of compiled kernels alive in this process (dropped functions release theirs).
#[pyfunction]
fn _live_kernels() -> usize {
    crate::runtime::live_kernels()
}

/// Number of `cl_mem` buffers alive in this process (buffer back end, pool included).
#[pyfunction]
fn _live_buffers() -> usize {
    crate::runtime::live_buffers()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::codegen::emit::spirv_helper::prestart();
    program_cache::install_warning_hook();
    m.add_class::<PyDevice>()?;
    m.add_class::<PyContext>()?;
    m.add_class::<PyQueue>()?;
    m.add_class::<PyAllocation>()?;
    m.add_class::<compiler::PyKernel>()?;
    m.add_class::<native::NativeArray>()?;
    m.add_class::<native::ArrayInfo>()?;
    m.add_class::<dlpack::DLPackTensor>()?;
    m.add_class::<jit::JitCaller>()?;
    m.add_class::<plan_run::PlanRunner>()?;
    m.add_class::<kernel_launch::KernelCaller>()?;
    m.add_class::<kernel_launch::KernelLaunch>()?;
    m.add_function(wrap_pyfunction!(get_devices, m)?)?;
    m.add_function(wrap_pyfunction!(_live_allocations, m)?)?;
    m.add_function(wrap_pyfunction!(_live_buffers, m)?)?;
    m.add_function(wrap_pyfunction!(_unsettled_queues, m)?)?;
    m.add_function(wrap_pyfunction!(_live_kernels, m)?)?;
    m.add("KERNEL_IR_VERSION", kernel_spec::KERNEL_IR_VERSION)?;
    m.add("NVIDIA_WORK_GROUP", crate::runtime::NVIDIA_WORK_GROUP)?;
    m.add("MAX_CONTEXT_PROGRAMS", crate::runtime::MAX_CONTEXT_PROGRAMS)?;
    m.add_function(wrap_pyfunction!(nrt::_set_nrt_api, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::memcpy, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::settle_all, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::fill, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::allocation_extent, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::compile_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::launch_chain, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::compile_function, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::kernel_from_package, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::kernel_llvm_ir, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::function_llvm_ir, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::optimize_host_module, m)?)?;
    m.add_function(wrap_pyfunction!(compiler::host_optimizer, m)?)?;
    m.add_function(wrap_pyfunction!(capi::capi_addresses, m)?)?;
    m.add_function(wrap_pyfunction!(queues::_register_queue, m)?)?;
    m.add_function(wrap_pyfunction!(native::empty, m)?)?;
    m.add_function(wrap_pyfunction!(known_calls::known_call, m)?)?;
    m.add_function(wrap_pyfunction!(known_calls::known_add, m)?)?;
    m.add_function(wrap_pyfunction!(known_calls::known_clear, m)?)?;
    m.add_function(wrap_pyfunction!(known_calls::known_served, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack::dlpack_export, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack::dlpack_import, m)?)?;
    m.add_function(wrap_pyfunction!(fast_path::_offload_active, m)?)?;
    m.add_function(wrap_pyfunction!(program_cache::program_cache_info, m)?)?;
    m.add_function(wrap_pyfunction!(program_cache::program_cache_clear, m)?)?;
    m.add_function(wrap_pyfunction!(program_cache::program_cache_directory, m)?)?;
    m.add_function(wrap_pyfunction!(program_cache::program_cache_enabled, m)?)?;
    Ok(())
}
