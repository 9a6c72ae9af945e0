//! The one fast path of calls from Python into compiled code, shared by jitted functions (`jit.rs`)
//! and kernel launches (`kernel_launch.rs`).
//!
//! A call qualifies when no `offload_to` context is active anywhere, every array argument is a
//! `numba_ext.ndarray` (exactly, not a subclass) and all of them live on one queue with one USM
//! type, and no argument is a NumPy array. Its arguments are scanned once ([`scan_args`]): arrays are
//! read through their native images (made on first use, as unboxing would), and the call gets a key
//! of argument types (each array's Numba type, interned and compared by identity; each other
//! argument's Python type) under which the compiled target of the call is cached ([`TypeCache`]). A
//! kernel launch also marshals its argument slots on the way; the launch itself is the runtime's one
//! launch path (`runtime/launch.rs`), run with the GIL released.

use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Mutex;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};

use super::native::NativeArray;
use crate::runtime::{CompiledKernel, Queue, Slots};

/// Number of `offload_to` contexts entered and not yet left, in all threads.
static OFFLOAD_ACTIVE: AtomicIsize = AtomicIsize::new(0);

/// Count `offload_to` contexts (`delta` +1 on entry, -1 on exit).
#[pyfunction]
pub fn _offload_active(delta: isize) -> isize {
    OFFLOAD_ACTIVE.fetch_add(delta, Ordering::SeqCst) + delta
}

/// Whether an `offload_to` context is active in any thread (calls then take the Python path).
pub(super) fn offload_active() -> bool {
    OFFLOAD_ACTIVE.load(Ordering::SeqCst) != 0
}

/// How a launch covers its range (see [`launch`]).
pub(super) enum Range<'a> {
    /// An elementwise kernel with general slots (`CompiledKernel::launch_general`).
    Elementwise { broadcast: bool },
    /// An ND-range (`local` None lets the driver choose the work-group size).
    Nd { global: &'a [usize], local: Option<&'a [usize]> },
}

/// Launch `kernel` on `queue` and wait, with the GIL released (other Python threads run while the
/// device works): the one launch of the fast paths, from kernel launches and from compiled host code.
pub(super) fn launch(
    py: Python<'_>,
    kernel: &CompiledKernel,
    queue: &Queue,
    slots: &[u64],
    range: Range<'_>,
) -> crate::Result<()> {
    py.detach(|| match range {
        Range::Elementwise { broadcast } => kernel.launch_general(queue, slots, broadcast),
        Range::Nd { global, local } => kernel.launch_nd(queue, slots, global, local),
    })
}

/// How a fast path takes the arguments that are not numba_ext arrays.
pub(super) enum Others<'a, 'py> {
    /// Jitted functions: NumPy arrays (`numpy_type`) and subclasses of numba_ext's array take the
    /// Python path; Python floats, bools, complexes and ints within int64 are keyed by their type
    /// (Numba types them by it); any other object leaves the call without a key (the dispatcher
    /// types it).
    Typed { numpy_type: &'a Bound<'py, PyType> },
    /// Kernel launches: Python floats, bools and ints within int64 become argument slots, keyed by
    /// their type; objects of `local_type` (work-group memory sized per launch, interned per shape
    /// and dtype) pass no slot and are keyed by their identity; anything else takes the Python path.
    Slots { slots: &'a mut Slots, local_type: Option<&'a Bound<'py, PyType>> },
}

/// What [`scan_args`] found out about a call that qualifies for the fast path.
pub(super) struct Scan {
    /// Whether `key` holds the argument types (the call can use the cache).
    pub keyed: bool,
    /// The address of the arrays' queue (None when no argument is an array).
    pub queue: Option<usize>,
}

/// Scan a call's arguments (see the module documentation), filling `key[..args.len()]` with their
/// types when `keyed` (and `key` is long enough) and, for kernels, the slots. None: the call takes
/// the Python path.
pub(super) fn scan_args(
    py: Python<'_>,
    array_type: &Bound<'_, PyType>,
    args: &Bound<'_, PyTuple>,
    mut others: Others<'_, '_>,
    keyed: bool,
    key: &mut [usize],
) -> PyResult<Option<Scan>> {
    let mut keyed = keyed && args.len() <= key.len();
    let mut first: Option<(usize, u32)> = None;
    for (i, a) in args.iter().enumerate() {
        let t = a.get_type();
        if t.is(array_type) {
            let nx = a.getattr(intern!(py, "_nx"))?;
            let Ok(nx) = nx.cast::<NativeArray>() else { return Ok(None) };
            let img = nx.get();
            let here = (img.queue(), img.usm_code());
            if first.get_or_insert(here) != &here {
                return Ok(None);
            }
            if keyed {
                // an interned Numba type, kept alive by the image (and by the cache entry)
                key[i] = img.numba_type(&a)?.as_ptr() as usize;
            }
            if let Others::Slots { slots, .. } = &mut others {
                img.push_slots(slots);
            }
            continue;
        }
        match &mut others {
            Others::Typed { numpy_type } => {
                if a.is_instance(numpy_type)? || a.is_instance(array_type)? || is_foreign(&a)? {
                    return Ok(None);
                }
                if a.is_exact_instance_of::<PyInt>() && !keyable_scalar(&a) {
                    return Ok(None); // beyond int64: the Python path checks it (and Numba types it)
                }
                if keyed {
                    keyed = keyable_scalar(&a);
                    key[i] = t.as_ptr() as usize;
                }
            }
            Others::Slots { slots, local_type } => {
                if local_type.is_some_and(|lt| t.is(lt)) {
                    if keyed {
                        key[i] = a.as_ptr() as usize;
                    }
                    continue;
                }
                let Some(bits) = scalar_slot(&a)? else { return Ok(None) };
                slots.push(bits);
                if keyed {
                    key[i] = t.as_ptr() as usize;
                }
            }
        }
    }
    Ok(Some(Scan { keyed, queue: first.map(|(q, _)| q) }))
}

/// Python scalars whose Numba type depends only on their Python type: float, bool, complex, and int
/// within int64 (Numba types those int64; others uint64 or not at all).
/// An array or queue of another SYCL runtime (anything exposing `__sycl_usm_array_interface__`, such
/// as dpnp's and dpctl's arrays, or a `dpctl.SyclQueue`): the Python path adopts it
/// (`numba_ext.placement.foreign`). Python scalars are never foreign.
fn is_foreign(a: &Bound<'_, PyAny>) -> PyResult<bool> {
    if keyable_scalar(a) {
        return Ok(false);
    }
    let py = a.py();
    if a.hasattr(intern!(py, "__sycl_usm_array_interface__"))? {
        return Ok(true);
    }
    let t = a.get_type();
    Ok(t.name()?.to_str()? == "SyclQueue" && t.module()?.to_str()?.starts_with("dpctl"))
}

fn keyable_scalar(a: &Bound<'_, PyAny>) -> bool {
    if a.is_exact_instance_of::<PyFloat>()
        || a.is_exact_instance_of::<PyBool>()
        || a.is_exact_instance_of::<PyComplex>()
    {
        return true;
    }
    if a.is_exact_instance_of::<PyInt>() {
        return a.extract::<i64>().is_ok_and(|v| v != i64::MIN);
    }
    false
}

/// The argument slot of a Python float, bool or int within int64 (None for anything else).
fn scalar_slot(a: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    Ok(if a.is_exact_instance_of::<PyFloat>() {
        Some(a.extract::<f64>()?.to_bits())
    } else if a.is_exact_instance_of::<PyBool>() {
        Some(a.is_truthy()? as u64)
    } else if a.is_exact_instance_of::<PyInt>() {
        a.extract::<i64>().ok().map(|v| v as u64)
    } else {
        None
    })
}

/// The objects whose addresses [`scan_args`] puts in a key: each array's Numba type, each object of
/// `local_type` itself, each other argument's Python type. A cache entry keeps them, so that the
/// addresses stay theirs.
pub(super) fn argument_types(
    py: Python<'_>,
    array_type: &Bound<'_, PyType>,
    args: &Bound<'_, PyTuple>,
    local_type: Option<&Bound<'_, PyType>>,
) -> PyResult<Vec<Py<PyAny>>> {
    args.iter()
        .map(|a| {
            if local_type.is_some_and(|lt| a.get_type().is(lt)) {
                Ok(a.clone().unbind())
            } else if a.get_type().is(array_type) {
                let nx = a.getattr(intern!(py, "_nx"))?;
                let nx = nx.cast::<NativeArray>().map_err(PyErr::from)?;
                Ok(nx.get().numba_type(&a)?.to_owned().unbind())
            } else {
                Ok(a.get_type().into_any().unbind())
            }
        })
        .collect()
}

/// Compiled targets of calls by key (a short list: one entry per argument-type combination seen).
pub(super) struct TypeCache<E> {
    entries: Mutex<Vec<Entry<E>>>,
}

struct Entry<E> {
    key: Vec<usize>,
    /// The objects behind `key` (see [`argument_types`]).
    _keep: Vec<Py<PyAny>>,
    value: E,
}

impl<E> Default for TypeCache<E> {
    fn default() -> Self {
        TypeCache { entries: Mutex::new(Vec::new()) }
    }
}

impl<E> TypeCache<E> {
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Entry<E>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `f` of the value cached under `key`, if any.
    pub(super) fn get<R>(&self, key: &[usize], f: impl FnOnce(&E) -> R) -> Option<R> {
        self.entries().iter().find(|e| e.key == key).map(|e| f(&e.value))
    }

    /// Cache `value` under `key` unless a value is cached there already; `keep` holds the objects
    /// behind the key. (What is not kept is dropped after the lock is released.)
    pub(super) fn insert(&self, key: &[usize], keep: Vec<Py<PyAny>>, value: E) {
        let mut entries = self.entries();
        if !entries.iter().any(|e| e.key == key) {
            entries.push(Entry { key: key.to_vec(), _keep: keep, value });
        }
    }

    /// Forget every entry.
    pub(super) fn clear(&self) {
        let old = std::mem::take(&mut *self.entries());
        drop(old); // decrefs after the lock is released
    }

    pub(super) fn len(&self) -> usize {
        self.entries().len()
    }

    /// Show the garbage collector the objects the entries hold (`visit_value`: those of one value).
    /// A cache another thread holds locked right now is skipped: a missed cycle is collected later.
    pub(super) fn traverse(
        &self,
        visit: &PyVisit<'_>,
        visit_value: impl Fn(&E, &PyVisit<'_>) -> Result<(), PyTraverseError>,
    ) -> Result<(), PyTraverseError> {
        let Ok(entries) = self.entries.try_lock() else { return Ok(()) };
        for e in entries.iter() {
            for k in &e._keep {
                visit.call(k)?;
            }
            visit_value(&e.value, visit)?;
        }
        Ok(())
    }
}
