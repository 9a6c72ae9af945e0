//! The call of a jitted function served from its source (`numba_ext/functions/plan.py`) in one
//! native step, when all its arrays share one USM type on the call's queue. The runner reads the
//! arrays (through their NumPy descriptors, never making a native image: that would need Numba's
//! types), checks their shapes as the plan's Python path does (NumPy broadcasting to one shape that
//! every result has), converts the scalars, allocates the results natively and launches the one
//! fused kernel: the one for C-contiguous arrays when every array read is C-contiguous with the
//! iteration shape, else the one for that mix of layouts, given each strided or broadcast array's
//! byte strides over the iteration space (0 along broadcast dimensions). Anything else (mixed USM
//! types, shapes that need Numba's error, a scalar it cannot convert exactly as the Python path
//! does) returns `NotImplemented` and the call takes the plan's Python path, which covers every case.
//!
//! What the runner asks of the plan it is given (on first use per device and layout, or per USM
//! type and result): `runner_kernel(queue, contiguous)`, the kernel for arrays of that contiguity
//! on that queue's device, and `runner_info(k, usm_type, queue)`, the `ArrayInfo` of result `k`
//! (with the checks allocation makes: fp64 and half precision support); and, for plans with host
//! steps, `host_values(args)`.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyString, PyTuple};

use super::compiler::PyKernel;
use super::native::{self, ArrayInfo};
use super::runtime::PyQueue;
use crate::runtime::{CompiledKernel, Slots, UsmKind};

/// Where a scalar slot's value comes from.
enum Scalar {
    /// The call's argument `index`.
    Param { index: usize, float: bool },
    /// A constant, already as bits.
    Const(u64),
    /// The host step `index` (`plan.host_values`).
    Value { index: usize, float: bool },
}

/// One kernel parameter, in the kernel's order.
enum Slot {
    /// Array `k` of `arrays`: its data address.
    Array(usize),
    /// Scalar `k`.
    Scalar(usize),
    /// Result `k`: its data address.
    Out(usize),
}

/// An array argument as the runner reads it.
struct Arg {
    data: u64,
    shape: Vec<i64>,
    strides: Vec<i64>,
    contiguous: bool,
    usm: u32,
}

/// A result's info key: (result, USM type code, device id).
type InfoKey = (usize, u32, usize);
/// A kernel's key: (device id, per array read whether it is C-contiguous with the iteration shape).
type KernelKey = (usize, Vec<bool>);

/// The runner of one plan (see the module documentation).
#[pyclass(name = "PlanRunner", module = "numba_ext._core", frozen)]
pub struct PlanRunner {
    /// Parameters whose arrays must have the one shape (those the kernel reads, and those of unused
    /// array statements).
    check: Vec<usize>,
    /// Per array the kernel reads: its position in `check`.
    arrays: Vec<usize>,
    /// Per result: the positions in `check` of the arrays it depends on.
    out_deps: Vec<Vec<usize>>,
    /// Per array statement no result needs: the positions in `check` of its arrays (they must
    /// broadcast, as Numba still evaluates the statement).
    unused_deps: Vec<Vec<usize>>,
    scalars: Vec<Scalar>,
    order: Vec<Slot>,
    out_itemsizes: Vec<i64>,
    returns: Vec<usize>,
    returns_tuple: bool,
    host_steps: bool,
    /// Kernels by device id and contiguity of the arrays read.
    kernels: Mutex<Vec<(KernelKey, Arc<CompiledKernel>)>>,
    /// Result infos by (result, USM type code, device id).
    infos: Mutex<Vec<(InfoKey, Py<ArrayInfo>)>>,
}

fn bad(what: &str) -> PyErr {
    PyValueError::new_err(format!("PlanRunner: {what}"))
}

#[pymethods]
impl PlanRunner {
    /// `arrays`: the parameters the kernel reads as arrays, in its order; `check`: every array
    /// parameter whose shape must match; `scalars`: per scalar slot `(kind, n, float)` with kind 0 a
    /// parameter (n its index), 1 a constant (n its bits), 2 a host step (n its index); `order`: per
    /// kernel parameter `(kind, k)` with kind 0 array, 1 scalar, 2 result; `out_itemsizes` per
    /// result; `returns`: the results returned, in order; `returns_tuple`: whether as a tuple;
    /// `host_steps`: whether the plan has host steps (run on every call, used or not: they may raise);
    /// `out_deps` per result and `unused_deps` per unused array statement: the array parameters
    /// they depend on.
    #[new]
    #[allow(clippy::too_many_arguments)] // the plan's parts, as Python passes them
    fn new(
        arrays: Vec<usize>,
        check: Vec<usize>,
        scalars: Vec<(u8, u64, bool)>,
        order: Vec<(u8, usize)>,
        out_itemsizes: Vec<i64>,
        returns: Vec<usize>,
        returns_tuple: bool,
        host_steps: bool,
        out_deps: Vec<Vec<usize>>,
        unused_deps: Vec<Vec<usize>>,
    ) -> PyResult<Self> {
        let position = |a: &usize| check.iter().position(|c| c == a).ok_or_else(|| bad("an array read is not checked"));
        let arrays = arrays.iter().map(position).collect::<PyResult<Vec<_>>>()?;
        let positions = |groups: Vec<Vec<usize>>| -> PyResult<Vec<Vec<usize>>> {
            groups.iter().map(|g| g.iter().map(position).collect()).collect()
        };
        let out_deps = positions(out_deps)?;
        let unused_deps = positions(unused_deps)?;
        if arrays.is_empty() || out_deps.len() != out_itemsizes.len() {
            return Err(bad("a plan reads arrays and gives each result its dependencies"));
        }
        let scalars = scalars
            .into_iter()
            .map(|(kind, n, float)| match kind {
                0 => Ok(Scalar::Param { index: n as usize, float }),
                1 => Ok(Scalar::Const(n)),
                2 => Ok(Scalar::Value { index: n as usize, float }),
                _ => Err(bad("unknown scalar kind")),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let order = order
            .into_iter()
            .map(|(kind, k)| match kind {
                0 if k < arrays.len() => Ok(Slot::Array(k)),
                1 if k < scalars.len() => Ok(Slot::Scalar(k)),
                2 if k < out_itemsizes.len() => Ok(Slot::Out(k)),
                _ => Err(bad("kernel parameter out of range")),
            })
            .collect::<PyResult<Vec<_>>>()?;
        if returns.iter().any(|&r| r >= out_itemsizes.len()) || out_itemsizes.is_empty() {
            return Err(bad("returned result out of range"));
        }
        if !host_steps && scalars.iter().any(|s| matches!(s, Scalar::Value { .. })) {
            return Err(bad("a host value without host steps"));
        }
        Ok(PlanRunner {
            check,
            arrays,
            out_deps,
            unused_deps,
            scalars,
            order,
            out_itemsizes,
            returns,
            returns_tuple,
            host_steps,
            kernels: Mutex::new(Vec::new()),
            infos: Mutex::new(Vec::new()),
        })
    }

    /// The call with `args` on `queue` (the queue of all its arrays), or `NotImplemented` when it is
    /// not the runner's case (see the module documentation).
    fn __call__<'py>(
        &self,
        args: &Bound<'py, PyAny>,
        queue: &Bound<'py, PyQueue>,
        plan: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.run(args, queue, plan)
    }

    /// Number of devices the runner holds a kernel for.
    #[getter]
    fn devices(&self) -> usize {
        let kernels = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        let mut ids: Vec<usize> = kernels.iter().map(|e| e.0 .0).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    /// Number of kernels the runner holds (one per device and layout of the arrays read).
    #[getter]
    fn kernels(&self) -> usize {
        self.kernels.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

impl PlanRunner {
    /// See `__call__`.
    pub fn run<'py>(
        &self,
        args: &Bound<'py, PyAny>,
        queue: &Bound<'py, PyQueue>,
        plan: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = args.py();
        let not_implemented = || Ok(py.NotImplemented().into_bound(py));
        let mut read = Vec::with_capacity(self.check.len());
        let mut usm = None;
        for &i in &self.check {
            let Some(a) = read_array(&args.get_item(i)?)? else { return not_implemented() };
            if *usm.get_or_insert(a.usm) != a.usm {
                return not_implemented(); // mixed USM types: each result's own (the Python path)
            }
            read.push(a);
        }
        let Some(usm) = usm else { return not_implemented() };
        let Some(shape) = self.shape(&read) else { return not_implemented() };
        let contiguous: Vec<bool> = self.arrays.iter().map(|&k| read[k].contiguous && read[k].shape == shape).collect();
        let values = if self.host_steps { Some(plan.call_method1(intern!(py, "host_values"), (args,))?) } else { None };
        let mut bits = Vec::with_capacity(self.scalars.len());
        for s in &self.scalars {
            let b = match s {
                Scalar::Param { index, float } => scalar_bits(&args.get_item(*index)?, *float),
                Scalar::Const(b) => Some(*b),
                Scalar::Value { index, float } => match &values {
                    Some(v) => scalar_bits(&v.get_item(*index)?, *float),
                    None => None,
                },
            };
            let Some(b) = b else { return not_implemented() };
            bits.push(b);
        }
        let q = queue.get().inner.clone();
        let device = q.device().id() as usize;
        let kernel = self.kernel(plan, queue, device, &contiguous)?;
        let mut outs = Vec::with_capacity(self.out_itemsizes.len());
        let mut out_data = Vec::with_capacity(self.out_itemsizes.len());
        for (k, &itemsize) in self.out_itemsizes.iter().enumerate() {
            let info = self.info(plan, queue, k, usm, device)?;
            let (obj, addr) = native::empty_with_data(queue, shape.clone(), itemsize, info)?;
            outs.push(obj);
            out_data.push(addr);
        }
        let size = shape.iter().try_fold(1i64, |a, &s| a.checked_mul(s)).ok_or_else(|| bad("size overflows"))?;
        if size > 0 {
            let mut slots = Slots::new();
            for o in &self.order {
                match *o {
                    Slot::Array(k) => {
                        let a = &read[self.arrays[k]];
                        slots.push(a.data);
                        if !contiguous[k] {
                            // byte strides over the iteration space, 0 along broadcast dimensions
                            let pad = shape.len() - a.shape.len();
                            (0..pad).for_each(|_| slots.push(0));
                            for ((&n, &st), &m) in a.shape.iter().zip(&a.strides).zip(&shape[pad..]) {
                                slots.push(if n == 1 && m != 1 { 0 } else { st as u64 });
                            }
                        }
                    }
                    Slot::Scalar(k) => slots.push(bits[k]),
                    Slot::Out(k) => slots.push(out_data[k]),
                }
            }
            for &s in &shape {
                slots.push(s as u64);
            }
            slots.push(size as u64);
            py.detach(|| kernel.launch(&q, slots.as_slice()))?;
        }
        if self.returns_tuple {
            Ok(PyTuple::new(py, self.returns.iter().map(|&k| outs[k].clone()))?.into_any())
        } else {
            Ok(outs[self.returns[0]].clone())
        }
    }

    /// The iteration shape, as the plan's `shape` gives it: None when the arrays do not broadcast
    /// to one shape that every result has (or an unused statement's arrays do not broadcast).
    fn shape(&self, read: &[Arg]) -> Option<Vec<i64>> {
        let group = |g: &[usize]| broadcast(g.iter().map(|&k| read[k].shape.as_slice()));
        if !self.unused_deps.iter().all(|g| group(g).is_some()) {
            return None;
        }
        let first = &read[self.arrays[0]].shape;
        if self.arrays.iter().all(|&k| read[k].shape == *first) {
            return Some(first.clone());
        }
        let full = group(&self.arrays)?;
        self.out_deps.iter().all(|g| group(g).as_ref() == Some(&full)).then_some(full)
    }

    fn kernel(
        &self,
        plan: &Bound<'_, PyAny>,
        queue: &Bound<'_, PyQueue>,
        device: usize,
        contiguous: &[bool],
    ) -> PyResult<Arc<CompiledKernel>> {
        let found = self
            .kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|e| e.0 .0 == device && e.0 .1 == contiguous)
            .map(|e| e.1.clone());
        if let Some(k) = found {
            return Ok(k);
        }
        let py = plan.py();
        let layout = PyTuple::new(py, contiguous)?;
        let k = plan.call_method1(intern!(py, "runner_kernel"), (queue, layout))?;
        let k = k.cast::<PyKernel>().map_err(PyErr::from)?.get().inner.clone();
        self.kernels.lock().unwrap_or_else(|p| p.into_inner()).push(((device, contiguous.to_vec()), k.clone()));
        Ok(k)
    }

    fn info<'py>(
        &self,
        plan: &Bound<'py, PyAny>,
        queue: &Bound<'py, PyQueue>,
        k: usize,
        usm: u32,
        device: usize,
    ) -> PyResult<Bound<'py, ArrayInfo>> {
        let py = plan.py();
        let key = (k, usm, device);
        let found =
            self.infos.lock().unwrap_or_else(|p| p.into_inner()).iter().find(|e| e.0 == key).map(|e| e.1.clone_ref(py));
        if let Some(i) = found {
            return Ok(i.into_bound(py));
        }
        let usm_type = UsmKind::from_code(usm).map_err(|e| bad(&e.to_string()))?.as_str();
        let info = plan.call_method1(intern!(py, "runner_info"), (k, usm_type, queue))?;
        let info = info.cast_into::<ArrayInfo>().map_err(PyErr::from)?;
        self.infos.lock().unwrap_or_else(|p| p.into_inner()).push((key, info.clone().unbind()));
        Ok(info)
    }
}

/// NumPy's C-contiguity: strides of dimensions of extent 1 do not matter, an empty array is
/// contiguous.
fn c_contiguous(shape: &[i64], strides: &[i64], itemsize: i64) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expect = itemsize;
    for d in (0..shape.len()).rev() {
        if shape[d] != 1 {
            if strides[d] != expect {
                return false;
            }
            expect *= shape[d];
        }
    }
    true
}

/// NumPy's broadcasting of `shapes` (None: they do not broadcast).
fn broadcast<'a>(shapes: impl Iterator<Item = &'a [i64]>) -> Option<Vec<i64>> {
    let mut out: Vec<i64> = Vec::new();
    for s in shapes {
        if s.len() > out.len() {
            let mut grown = vec![1; s.len() - out.len()];
            grown.extend_from_slice(&out);
            out = grown;
        }
        let off = out.len() - s.len();
        for (o, &d) in out[off..].iter_mut().zip(s) {
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return None;
            }
        }
    }
    Some(out)
}

/// A `numba_ext.ndarray` argument (None: one the runner does not read): from its native image
/// when it has one (a result of compiled code or of another call), else through its NumPy
/// descriptor (never making the image, which would need Numba's types).
fn read_array(a: &Bound<'_, PyAny>) -> PyResult<Option<Arg>> {
    let py = a.py();
    if let Some(image) = native_image(a) {
        let image = image.get();
        let (data, shape, strides, itemsize) = image.layout();
        let contiguous = c_contiguous(&shape, &strides, itemsize);
        return Ok(Some(Arg { data, contiguous, shape, strides, usm: image.usm_code() }));
    }
    let desc = a.getattr(intern!(py, "_desc"))?;
    let shape: Vec<i64> = desc.getattr(intern!(py, "shape"))?.extract()?;
    let strides: Vec<i64> = desc.getattr(intern!(py, "strides"))?.extract()?;
    let itemsize: i64 = desc.getattr(intern!(py, "itemsize"))?.extract()?;
    let data: u64 = a.getattr(intern!(py, "_ptr"))?.extract()?;
    let usm_type = a.getattr(intern!(py, "_usm_type"))?;
    let Ok(usm_type) = usm_type.cast::<PyString>() else { return Ok(None) };
    let Ok(usm) = UsmKind::parse(usm_type.to_str()?) else { return Ok(None) };
    Ok(Some(Arg { data, contiguous: c_contiguous(&shape, &strides, itemsize), shape, strides, usm: usm.code() }))
}

/// The array's native image if it is set: its `_nx` slot read without the class's `__getattr__`,
/// which would make one.
fn native_image<'py>(a: &Bound<'py, PyAny>) -> Option<Bound<'py, native::NativeArray>> {
    let py = a.py();
    // SAFETY: generic attribute lookup on a live object with an interned name; a new reference or
    // NULL with an AttributeError set, which is cleared.
    let found = unsafe { pyo3::ffi::PyObject_GenericGetAttr(a.as_ptr(), intern!(py, "_nx").as_ptr()) };
    if found.is_null() {
        let _ = PyErr::take(py);
        return None;
    }
    // SAFETY: `found` is a new, non-null reference
    let found = unsafe { Bound::from_owned_ptr(py, found) };
    found.cast_into::<native::NativeArray>().ok()
}

/// A scalar's slot as the Python path computes it (`float(v)`'s bits for a float64 slot, else
/// `int(v)` as 64 bits), for Python floats, ints and bools and NumPy scalars that convert without
/// loss; None for anything else (the Python path then decides).
fn scalar_bits(v: &Bound<'_, PyAny>, float: bool) -> Option<u64> {
    if float {
        return v.extract::<f64>().ok().map(f64::to_bits);
    }
    if v.is_instance_of::<PyFloat>() {
        return None; // int(v) truncates: the Python path
    }
    v.extract::<i64>().map(|x| x as u64).or_else(|_| v.extract::<u64>()).ok()
}
