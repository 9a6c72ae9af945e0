//! The boundary calls from Python into the compiler: `compile_kernel(spec, device)` and
//! `compile_function(function, device)` (the typed kernel IR is read by `kernel_spec.rs`), and the
//! compiled kernel object they return.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::kernel_spec::{function_from_py, spec_from_py};
use super::runtime::{PyDevice, PyQueue};
use crate::codegen::Flavor;
use crate::runtime::{ChainStep, CompiledKernel, Completion};

/// Compile (or fetch from the cache) a control-flow kernel for `device`.
#[pyfunction]
pub fn compile_function(
    py: Python<'_>,
    function: &Bound<'_, PyAny>,
    device: PyRef<'_, PyDevice>,
) -> PyResult<PyKernel> {
    let f = function_from_py(function)?;
    let dev = device.inner.clone();
    Ok(PyKernel { inner: py.detach(|| CompiledKernel::get_or_compile_function(&f, &dev))? })
}

/// Optimise a host module (Numba's, as bitcode) with `passes` for the host CPU in this crate's LLVM;
/// returns the optimised bitcode. Runs without the GIL.
#[pyfunction]
#[pyo3(signature = (bitcode, passes, cpu, features, loop_vectorize, slp_vectorize))]
pub fn optimize_host_module<'py>(
    py: Python<'py>,
    bitcode: &[u8],
    passes: &str,
    cpu: &str,
    features: &str,
    loop_vectorize: bool,
    slp_vectorize: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = crate::codegen::host::HostOptions { cpu, features, loop_vectorize, slp_vectorize };
    let out = py.detach(|| crate::codegen::host::optimize_bitcode(bitcode, passes, &options))?;
    Ok(PyBytes::new(py, &out))
}

/// Whether `optimize_host_module` can run here (this build's LLVM has the host's target), and the
/// version of that LLVM.
#[pyfunction]
pub fn host_optimizer() -> (bool, (u32, u32, u32)) {
    (crate::codegen::host::host_target_available(), crate::codegen::host::llvm_version())
}

/// A kernel compiled for one device kind.
#[pyclass(name = "Kernel", module = "numba_ext._core", frozen)]
pub struct PyKernel {
    pub inner: Arc<CompiledKernel>,
}

#[pymethods]
impl PyKernel {
    #[getter]
    fn name(&self) -> &str {
        &self.inner.binary().kernel_name
    }
    /// The address compiled host code passes to `nx_launch` (valid while this object lives).
    #[getter]
    fn address(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }
    #[getter]
    fn llvm_ir(&self) -> &str {
        &self.inner.binary().llvm_ir
    }
    #[getter]
    fn format(&self) -> &'static str {
        match self.inner.binary().flavor {
            Flavor::Spirv => "spirv",
            Flavor::Nvptx => "ptx",
        }
    }
    #[getter]
    fn binary<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.binary().bytes)
    }
    /// This kernel as bytes (device binary, slots, target) for compiled code cached on disk.
    #[getter]
    fn package<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.package())
    }
    /// The number of contexts this kernel has a built program for (at most `MAX_CONTEXT_PROGRAMS`).
    #[getter]
    fn loaded_contexts(&self) -> usize {
        self.inner.loaded_contexts()
    }
    #[getter]
    fn num_slots(&self) -> usize {
        self.inner.slots().len()
    }
    #[getter]
    fn graph_nodes(&self) -> usize {
        self.inner.binary().graph_nodes
    }
    /// Launch with one integer per argument slot and wait (used by eager operations and tests).
    /// `wait=False` leaves the command running on an in-order queue (the eager library's results:
    /// see `Queue.settle`).
    #[pyo3(signature = (queue, slots, wait = true))]
    fn launch(&self, py: Python<'_>, queue: PyRef<'_, PyQueue>, slots: Vec<u64>, wait: bool) -> PyResult<()> {
        let q = queue.inner.clone();
        Ok(py.detach(|| self.inner.launch_then(&q, &slots, completion(wait)))?)
    }
    /// Launch over an ND-range and wait (`local` None lets the driver choose the work-group size).
    /// `fill` = (address, pattern, bytes): memory of the queue filled with the pattern first (an
    /// accumulator), on an in-order queue without a wait of its own. `wait` as `launch`'s.
    #[pyo3(signature = (queue, slots, global_size, local_size = None, fill = None, wait = true))]
    #[allow(clippy::too_many_arguments)]
    fn launch_nd(
        &self,
        py: Python<'_>,
        queue: PyRef<'_, PyQueue>,
        slots: Vec<u64>,
        global_size: Vec<usize>,
        local_size: Option<Vec<usize>>,
        fill: Option<(usize, Vec<u8>, usize)>,
        wait: bool,
    ) -> PyResult<()> {
        let q = queue.inner.clone();
        let local = local_size.as_deref();
        let then = completion(wait);
        Ok(py.detach(|| match &fill {
            None => self.inner.launch_nd_then(&q, &slots, &global_size, local, then),
            Some((dst, pattern, len)) => unsafe {
                let dst = *dst as *mut std::ffi::c_void;
                self.inner.launch_nd_after_fill(&q, (dst, pattern, *len), &slots, &global_size, local, then)
            },
        })?)
    }
    fn __repr__(&self) -> String {
        format!("<numba_ext Kernel '{}' ({})>", self.name(), self.format())
    }
}

/// Compile (or fetch from the cache) the kernel described by `spec` for `device`.
/// One launch of [`launch_chain`]: kernel, slots, global size, local size (or None), fill (or None).
type PyChainStep<'py> =
    (PyRef<'py, PyKernel>, Vec<u64>, Vec<usize>, Option<Vec<usize>>, Option<(usize, Vec<u8>, usize)>);

/// Launch `steps` (kernel, slots, global size, local size or None, fill or None, as
/// `Kernel.launch_nd` takes them) in order on `queue` and wait once for them all (in-order queues;
/// out-of-order ones wait for each); `wait=False` leaves an in-order queue's chain running.
#[pyfunction]
#[pyo3(signature = (queue, steps, wait = true))]
pub fn launch_chain(
    py: Python<'_>,
    queue: PyRef<'_, PyQueue>,
    steps: Vec<PyChainStep<'_>>,
    wait: bool,
) -> PyResult<()> {
    let q = queue.inner.clone();
    let owned: Vec<_> = steps
        .into_iter()
        .map(|(k, slots, global, local, fill)| (k.inner.clone(), slots, global, local, fill))
        .collect();
    Ok(py.detach(|| {
        let chain: Vec<ChainStep<'_>> = owned
            .iter()
            .map(|(kernel, slots, global, local, fill)| ChainStep {
                kernel,
                slots,
                global,
                local: local.as_deref(),
                fill: fill
                    .as_ref()
                    .map(|(dst, pattern, len)| (*dst as *mut std::ffi::c_void, pattern.as_slice(), *len)),
            })
            .collect();
        unsafe { crate::runtime::launch_chain(&q, &chain, completion(wait)) }
    })?)
}

#[pyfunction]
pub fn compile_kernel(py: Python<'_>, spec: &Bound<'_, PyAny>, device: PyRef<'_, PyDevice>) -> PyResult<PyKernel> {
    let spec = spec_from_py(spec)?;
    let dev = device.inner.clone();
    Ok(PyKernel { inner: py.detach(|| CompiledKernel::get_or_compile(&spec, &dev))? })
}

/// The kernel in `package` (see `Kernel.package`) for `device`: `spec` is its description, a
/// `KernelSpec` or a control-flow `Function`, compiled again only where the package was made for
/// another device target.
#[pyfunction]
pub fn kernel_from_package(
    py: Python<'_>,
    package: &[u8],
    spec: &Bound<'_, PyAny>,
    device: PyRef<'_, PyDevice>,
) -> PyResult<PyKernel> {
    let dev = device.inner.clone();
    let inner = if spec.hasattr("blocks")? {
        let f = function_from_py(spec)?;
        py.detach(|| CompiledKernel::from_package_function(package, &f, &dev))?
    } else {
        let s = spec_from_py(spec)?;
        py.detach(|| CompiledKernel::from_package_elementwise(package, &s, &dev))?
    };
    Ok(PyKernel { inner })
}

/// LLVM IR for a control-flow kernel without compiling device code (`target` is "spirv" or "ptx").
#[pyfunction]
pub fn function_llvm_ir(spec: &Bound<'_, PyAny>, target: &str) -> PyResult<String> {
    let f = function_from_py(spec)?;
    let flavor = if target == "ptx" { Flavor::Nvptx } else { Flavor::Spirv };
    Ok(crate::codegen::function_llvm_ir(&f, flavor)?)
}

/// LLVM IR for a spec without compiling device code (`target` is "spirv" or "ptx").
#[pyfunction]
pub fn kernel_llvm_ir(spec: &Bound<'_, PyAny>, target: &str) -> PyResult<String> {
    let spec = spec_from_py(spec)?;
    let flavor = if target == "ptx" { Flavor::Nvptx } else { Flavor::Spirv };
    Ok(crate::codegen::llvm_ir(&spec, flavor)?)
}

/// The launch completion a Python `wait` flag asks for.
fn completion(wait: bool) -> Completion {
    if wait {
        Completion::Wait
    } else {
        Completion::Leave
    }
}
