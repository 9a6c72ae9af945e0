//! The native side of `numba_ext.ndarray` for compiled code: cheap unboxing and boxing.
//!
//! An array's *native image* ([`NativeArray`], kept in the array's `_nx` slot) holds the words of
//! Numba's array struct for `USMArrayType` (meminfo, parent, nitems, itemsize, data, shape, strides,
//! queue) together with one reference to the meminfo. Unboxing (`nx_unbox`) copies the words and takes
//! one more meminfo reference, instead of running Numba's NumPy adaptor and replacing its meminfo on
//! every call. Boxing (`nx_box`) wraps a result struct in a new image and a `numba_ext.ndarray` holding
//! only that image (its queue object, USM type, Numba type and NumPy descriptor are made from the
//! image on first use), instead of a NumPy array plus a Python-level wrapper.
//!
//! The Python `Queue` object of a queue is found through the registry of `queues.rs`, so arrays
//! returned from compiled code carry the very queue object their inputs had.

use std::ffi::c_void;
use std::sync::OnceLock;

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};
use pyo3::{ffi, intern};

use super::nrt;
use super::queues::{queue_object, register_queue};
use super::runtime::PyQueue;
use crate::runtime::Slots;

/// Words of the array struct before `shape`: meminfo, parent, nitems, itemsize, data.
const HEAD: usize = 5;

fn nwords(ndim: usize) -> usize {
    HEAD + 2 * ndim + 1
}

/// Struct words kept inline for arrays of up to 4 dimensions (no separate allocation).
const INLINE: usize = HEAD + 2 * 4 + 1;

enum Words {
    Inline([u64; INLINE], usize),
    Heap(Box<[u64]>),
}

impl Words {
    fn new(w: &[u64]) -> Words {
        if w.len() <= INLINE {
            let mut a = [0u64; INLINE];
            a[..w.len()].copy_from_slice(w);
            Words::Inline(a, w.len())
        } else {
            Words::Heap(w.into())
        }
    }
    fn get(&self) -> &[u64] {
        match self {
            Words::Inline(a, n) => &a[..*n],
            Words::Heap(b) => b,
        }
    }
}

/// What boxing needs to know about a Numba array type, made once per type (numba_ext/compiler/types.py): the
/// class of boxed arrays, the USM type, the Numba type itself when it is the one `typeof` gives the
/// boxed array (C layout; otherwise None: computed per array on first use), the NumPy type string of
/// the elements and whether the array is read-only.
#[pyclass(name = "ArrayInfo", module = "numba_ext._core", frozen)]
pub struct ArrayInfo {
    cls: Py<PyType>,
    usm_type: Py<PyString>,
    usm_code: u32,
    nbtype: Option<Py<PyAny>>,
    typestr: Py<PyAny>,
    readonly: bool,
    /// The type string packed into a word (see [`ArrayInfo::dtype_code`]).
    code: u64,
}

impl ArrayInfo {
    /// The element type as one word: the bytes of the NumPy type string (`'<f8'`) with the top bit
    /// set; 0 when it is not a string of at most 7 bytes (compares unequal to every type).
    pub(super) fn dtype_code(&self) -> u64 {
        self.code
    }
    pub(super) fn readonly(&self) -> bool {
        self.readonly
    }
    pub(super) fn usm_code(&self) -> u32 {
        self.usm_code
    }
    /// The class of the arrays boxed with this information.
    pub(super) fn cls(&self) -> &Py<PyType> {
        &self.cls
    }
}

fn pack_typestr(typestr: &Bound<'_, PyAny>) -> u64 {
    match typestr.cast::<PyString>().ok().and_then(|s| s.to_str().ok().map(str::as_bytes).map(<[u8]>::to_vec)) {
        Some(b) if b.len() <= 7 => b.iter().enumerate().fold(1u64 << 63, |c, (i, &x)| c | (x as u64) << (8 * i)),
        _ => 0,
    }
}

#[pymethods]
impl ArrayInfo {
    #[new]
    fn new(
        cls: Py<PyType>,
        usm_type: Bound<'_, PyString>,
        nbtype: Option<Py<PyAny>>,
        typestr: Py<PyAny>,
        readonly: bool,
    ) -> PyResult<Self> {
        let usm_code =
            crate::runtime::UsmKind::parse(usm_type.to_str()?).map_err(|e| PyTypeError::new_err(e.to_string()))?.code();
        let code = pack_typestr(typestr.bind(usm_type.py()));
        Ok(ArrayInfo { cls, usm_type: usm_type.unbind(), usm_code, nbtype, typestr, readonly, code })
    }
    /// Picklable (compiled code holding it may be cached by Numba).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let i = slf.get();
        let args = (
            i.cls.bind(py),
            i.usm_type.bind(py),
            i.nbtype.as_ref().map(|t| t.bind(py)),
            i.typestr.bind(py),
            i.readonly,
        );
        Ok((slf.get_type(), args.into_pyobject(py)?))
    }
}

/// The native image of one array (see the module documentation). Owns one meminfo reference.
#[pyclass(name = "NativeArray", module = "numba_ext._core", frozen)]
pub struct NativeArray {
    words: Words,
    info: Py<ArrayInfo>,
    /// The array's Numba type when `info` has none (made on first use).
    nbtype: OnceLock<Py<PyAny>>,
}

impl Drop for NativeArray {
    fn drop(&mut self) {
        unsafe { nrt::release(self.words.get()[0] as *mut c_void) };
    }
}

impl NativeArray {
    fn rank(&self) -> usize {
        (self.words.get().len() - HEAD - 1) / 2
    }
    /// Address of the Rust queue.
    pub fn queue(&self) -> usize {
        *self.words.get().last().unwrap() as usize
    }
    /// Append a kernel's argument slots for this array: data address, shape, byte strides.
    pub fn push_slots(&self, slots: &mut Slots) {
        let (w, n) = (self.words.get(), self.rank());
        slots.push_array(w[4], &w[HEAD..HEAD + 2 * n]);
    }
    /// The USM type's code (`UsmKind::code`).
    pub fn usm_code(&self) -> u32 {
        self.info.get().usm_code
    }
    /// What the array's boxing knows of its type (element type, USM type, class).
    pub(super) fn info(&self) -> &ArrayInfo {
        self.info.get()
    }
    /// Data address, shape words, byte-stride words and item size, borrowed.
    pub(super) fn words_layout(&self) -> (u64, &[u64], &[u64], u64) {
        let (w, n) = (self.words.get(), self.rank());
        (w[4], &w[HEAD..HEAD + n], &w[HEAD + n..HEAD + 2 * n], w[3])
    }
    /// Data address, shape, byte strides and item size.
    pub fn layout(&self) -> (u64, Vec<i64>, Vec<i64>, i64) {
        let (w, n) = (self.words.get(), self.rank());
        let shape = w[HEAD..HEAD + n].iter().map(|&x| x as i64).collect();
        let strides = w[HEAD + n..HEAD + 2 * n].iter().map(|&x| x as i64).collect();
        (w[4], shape, strides, w[3] as i64)
    }
    /// The Numba type of `array` (whose image this is), as an object kept alive by the image.
    pub fn numba_type<'py>(&self, array: &Bound<'py, PyAny>) -> PyResult<Borrowed<'_, 'py, PyAny>> {
        let py = array.py();
        if let Some(t) = &self.info.get().nbtype {
            return Ok(t.bind_borrowed(py));
        }
        if self.nbtype.get().is_none() {
            let t = array.getattr(intern!(py, "_numba_type_"))?.unbind();
            let _ = self.nbtype.set(t);
        }
        Ok(self.nbtype.get().unwrap().bind_borrowed(py))
    }
}

#[pymethods]
impl NativeArray {
    /// The image of an array whose memory is owned by `owner` (its NumPy descriptor): a new meminfo
    /// keeps `owner` alive and records `queue`; `owner` is also the struct's `parent`.
    #[new]
    #[pyo3(signature = (owner, queue, data, shape, strides, itemsize, info))]
    fn new(
        owner: &Bound<'_, PyAny>,
        queue: &Bound<'_, PyQueue>,
        data: usize,
        shape: Vec<i64>,
        strides: Vec<i64>,
        itemsize: i64,
        info: Py<ArrayInfo>,
    ) -> PyResult<Self> {
        if shape.len() != strides.len() {
            return Err(PyTypeError::new_err("shape and strides differ in length"));
        }
        register_queue(queue)?;
        let q = &queue.get().inner;
        let mi = nrt::new_meminfo(q, nrt::Keep::Py(owner.clone().into_ptr()));
        let mut words = Vec::with_capacity(nwords(shape.len()));
        words.extend([
            mi as u64,
            owner.as_ptr() as u64,
            shape.iter().product::<i64>() as u64,
            itemsize as u64,
            data as u64,
        ]);
        words.extend(shape.iter().map(|&s| s as u64));
        words.extend(strides.iter().map(|&s| s as u64));
        words.push(q.as_ptr() as u64);
        Ok(NativeArray { words: Words::new(&words), info, nbtype: OnceLock::new() })
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.rank()
    }
    #[getter]
    fn data(&self) -> usize {
        self.words.get()[4] as usize
    }
    #[getter]
    fn shape(&self) -> Vec<i64> {
        let n = self.rank();
        self.words.get()[HEAD..HEAD + n].iter().map(|&w| w as i64).collect()
    }
    #[getter]
    fn strides(&self) -> Vec<i64> {
        let n = self.rank();
        self.words.get()[HEAD + n..HEAD + 2 * n].iter().map(|&w| w as i64).collect()
    }
    /// Address of the Rust queue (the `_handle` of its Python object).
    #[getter]
    fn queue_handle(&self) -> usize {
        self.queue()
    }
    /// The Python object of the array's queue (the registered one, see `register_queue`).
    #[getter(queue)]
    fn queue_obj<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyQueue>> {
        unsafe { queue_object(py, self.queue()) }
    }
    #[getter]
    fn usm_type<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.info.get().usm_type.bind(py).clone()
    }
    /// The Numba type `typeof` gives the array, when the image knows it (else None).
    #[getter(numba_type)]
    fn known_numba_type<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        self.info.get().nbtype.as_ref().or(self.nbtype.get()).map(|t| t.bind(py).clone())
    }

    /// NumPy's description of the memory; NumPy keeps this image alive as the base of the arrays it
    /// makes from it (the descriptor of an array returned from compiled code).
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let info = self.info.get();
        let d = pyo3::types::PyDict::new(py);
        d.set_item("data", (self.data(), info.readonly))?;
        d.set_item("shape", PyTuple::new(py, self.shape())?)?;
        d.set_item("strides", PyTuple::new(py, self.strides())?)?;
        d.set_item("typestr", info.typestr.bind(py))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

// -- C ABI for compiled code -----------------------------------------------------------------------

/// Fill the array struct at `out` (`ndim` dimensions) from `obj`'s native image (`obj._nx`, made on
/// first use) and take one meminfo reference for it. 0 on success, -1 with a Python error set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_unbox(obj: *mut ffi::PyObject, out: *mut u64, ndim: u32) -> i32 {
    Python::attach(|py| {
        let obj = unsafe { Bound::from_borrowed_ptr(py, obj) };
        // compiled host code may read the elements: commands still running on them finish first
        let settled = match crate::runtime::any_unsettled() {
            true => py.detach(crate::runtime::settle_all).map_err(PyErr::from),
            false => Ok(()),
        };
        let r = settled.and_then(|()| obj.getattr(intern!(py, "_nx"))).and_then(|nx| {
            let nx = nx.cast_into::<NativeArray>().map_err(PyErr::from)?;
            let w = nx.get().words.get();
            if w.len() != nwords(ndim as usize) {
                return Err(PyTypeError::new_err(format!(
                    "array of {} dimensions where {ndim} were expected",
                    nx.get().rank()
                )));
            }
            unsafe {
                std::ptr::copy_nonoverlapping(w.as_ptr(), out, w.len());
                nrt::acquire(w[0] as *mut c_void);
            }
            Ok(())
        });
        match r {
            Ok(()) => 0,
            Err(e) => {
                e.restore(py);
                -1
            }
        }
    })
}

/// A new `numba_ext.ndarray` for the array struct at `words` (`ndim` dimensions), taking over the
/// struct's meminfo reference. `info` is the boxed type's [`ArrayInfo`]. Null with a Python error set
/// on failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_box(words: *const u64, ndim: u32, info: *mut ffi::PyObject) -> *mut ffi::PyObject {
    Python::attach(|py| {
        let words = unsafe { std::slice::from_raw_parts(words, nwords(ndim as usize)) };
        let r = (|| -> PyResult<Bound<'_, PyAny>> {
            let info = unsafe { Bound::from_borrowed_ptr(py, info) };
            let info = match info.cast_into::<ArrayInfo>() {
                Ok(i) => i,
                Err(e) => {
                    unsafe { nrt::release(words[0] as *mut c_void) }; // the reference we were given
                    return Err(e.into());
                }
            };
            // from here on the image owns the reference (also when this fails)
            let nx = NativeArray { words: Words::new(words), info: info.unbind(), nbtype: OnceLock::new() };
            if nx.queue() == 0 {
                return Err(PyRuntimeError::new_err("a USM array returned from compiled code has no queue"));
            }
            box_image(py, nx)
        })();
        match r {
            Ok(o) => o.into_ptr(),
            Err(e) => {
                e.restore(py);
                std::ptr::null_mut()
            }
        }
    })
}

/// A new `numba_ext.ndarray` holding only the image `nx`: its queue object, USM type, Numba type and
/// descriptor are made from the image on first use (`ndarray.__getattr__`).
fn box_image(py: Python<'_>, nx: NativeArray) -> PyResult<Bound<'_, PyAny>> {
    let cls = nx.info.get().cls.clone_ref(py);
    let nx = Bound::new(py, nx)?;
    let obj = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyType_GenericAlloc(cls.as_ptr() as *mut ffi::PyTypeObject, 0))?
    };
    obj.setattr(intern!(py, "_nx"), nx)?;
    Ok(obj)
}

/// `numba_ext.empty` for a C-contiguous array: new memory of `info`'s USM type on `queue`, returned as
/// a `numba_ext.ndarray` holding only its native image (as results of compiled code are).
#[pyfunction]
pub fn empty<'py>(
    queue: &Bound<'py, PyQueue>,
    shape: Vec<i64>,
    itemsize: i64,
    info: Bound<'py, ArrayInfo>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(empty_with_data(queue, shape, itemsize, info)?.0)
}

/// [`empty`], with the new array's data address.
pub fn empty_with_data<'py>(
    queue: &Bound<'py, PyQueue>,
    shape: Vec<i64>,
    itemsize: i64,
    info: Bound<'py, ArrayInfo>,
) -> PyResult<(Bound<'py, PyAny>, u64)> {
    let py = queue.py();
    if shape.iter().any(|&s| s < 0) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("negative dimensions are not allowed: {shape:?}")));
    }
    let nitems = shape.iter().try_fold(1i64, |a, &s| a.checked_mul(s));
    let nbytes = nitems.and_then(|n| n.checked_mul(itemsize)).and_then(|b| usize::try_from(b).ok());
    let (Some(nitems), Some(nbytes)) = (nitems, nbytes) else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("array of shape {shape:?} is too large")));
    };
    register_queue(queue)?;
    new_array(py, &queue.get().inner, &shape, nitems, nbytes, itemsize, info)
}

/// A new C-contiguous `numba_ext.ndarray` of `nbytes` bytes on `q` (whose Python object is
/// registered), holding only its native image, with its data address.
pub(super) fn new_array<'py>(
    py: Python<'py>,
    q: &crate::runtime::Queue,
    shape: &[i64],
    nitems: i64,
    nbytes: usize,
    itemsize: i64,
    info: Bound<'py, ArrayInfo>,
) -> PyResult<(Bound<'py, PyAny>, u64)> {
    let kind =
        crate::runtime::UsmKind::from_code(info.get().usm_code).map_err(|e| PyTypeError::new_err(e.to_string()))?;
    let alloc = py.detach(|| crate::runtime::Allocation::new(q, kind, nbytes))?;
    let data = alloc.addr() as u64;
    let mi = nrt::new_meminfo(q, nrt::Keep::Alloc(alloc));
    let n = shape.len();
    let mut words = Vec::with_capacity(nwords(n));
    words.extend([mi as u64, 0, nitems as u64, itemsize as u64, data]);
    words.extend(shape.iter().map(|&s| s as u64));
    words.resize(HEAD + 2 * n, 0);
    let mut stride = itemsize;
    for d in (0..n).rev() {
        words[HEAD + n + d] = stride as u64;
        stride *= shape[d].max(1);
    }
    words.push(q.as_ptr() as u64);
    let obj = box_image(py, NativeArray { words: Words::new(&words), info: info.unbind(), nbtype: OnceLock::new() })?;
    Ok((obj, data))
}
