//! Eager elementwise calls of known kinds in one native step: `a + b`, `np.sqrt(a)`, `a * 2.0`,
//! `a += b`, `d += x[:, None]`, `np.add(a, b, out=c)` and the library's assignments into views, on
//! numba_ext arrays, once the library (`numba_ext/library/elementwise.py`) has placed, typed and
//! compiled a call of the same kind and registered it here ([`known_add`]).
//!
//! A call is of a known kind when its array operands (and its `out=` array, if any) are numba_ext
//! arrays (exactly the array class) on one queue with one USM type, and its other operands Python
//! floats, ints, bools and complex numbers. Its kind is the operation, the device, the USM type, the
//! rank of the iteration space and, per operand, the element type and layout (C-contiguous over the
//! whole space, or strided or broadcast, and its rank) or the Python type; per `out=` array its
//! element type and layout. What such a call needs beyond its operands is the same for every call of
//! the kind: the compiled kernel, the result element types and how each Python number is passed (its
//! bits in the loop's dtype, NumPy's value for a weak scalar). [`known_call`] then reads the
//! operands' native images, broadcasts their shapes, allocates the results, converts the numbers,
//! marshals addresses and strides as the library does and enqueues the kernel, left running on the
//! queue as the library's launches are (`runtime/queue.rs`). Anything else (a number it cannot
//! convert exactly as NumPy would, an `out=` array that may overlap an operand other than as the very
//! same view, a subclass, operands on several queues) returns None and the library's Python path
//! serves the call, with its checks and errors.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyTuple, PyType};

use super::native::{new_array, ArrayInfo, NativeArray};
use crate::runtime::{CompiledKernel, Completion, FastMap, Queue, Slots};

/// Operands of a known call, at most (every ufunc numba_ext offloads has one or two).
const MAX_OPERANDS: usize = 3;

/// Dimensions of the iteration space, at most.
const MAX_RANK: usize = 16;

/// Operation, device, USM type, then (rank, operand count, whether an `out=` array is given), then
/// one word per operand and one for the `out=` array.
type Key = [u64; 5 + MAX_OPERANDS];

/// In an array's key word: set when the array is not C-contiguous over the whole iteration space.
const STRIDED: u64 = 1 << 48;
/// In an array's key word: its rank, shifted.
const RANK_SHIFT: u32 = 40;

/// The operand kinds of Python numbers in a [`Key`] (arrays: their element type's code, which has
/// the top bit set).
const FLOAT: u64 = 1;
const INT: u64 = 2;
const BOOL: u64 = 3;
const COMPLEX: u64 = 4;

/// How a Python number is passed to the kernel: its value in the loop's dtype, as bits (a complex
/// number as two slots, its real and imaginary parts).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Conv {
    F64,
    F32,
    F16,
    Int { bytes: u32, signed: bool },
    Bool,
    C128,
    C64,
}

/// A Python number's value: real or complex (ints and bools exactly, as i64).
enum Value {
    Int(i64),
    Real(f64),
    Complex(f64, f64),
}

impl Value {
    fn read(v: &Bound<'_, PyAny>, kind: u64) -> Option<Value> {
        match kind {
            FLOAT => Some(Value::Real(v.cast::<PyFloat>().ok()?.value())),
            INT => Some(Value::Int(v.extract().ok()?)),
            BOOL => Some(Value::Int(v.is_truthy().ok()? as i64)),
            COMPLEX => {
                let c = v.cast::<PyComplex>().ok()?;
                Some(Value::Complex(c.real(), c.imag()))
            }
            _ => None,
        }
    }
}

impl Conv {
    /// The conversion into the NumPy dtype of type string `typestr` (`'<f8'`).
    fn parse(typestr: &str) -> Option<Conv> {
        let b = typestr.as_bytes();
        let size: u32 = typestr.get(2..)?.parse().ok()?;
        match (b.get(1)?, size) {
            (b'f', 8) => Some(Conv::F64),
            (b'f', 4) => Some(Conv::F32),
            (b'f', 2) => Some(Conv::F16),
            (b'i', 1 | 2 | 4 | 8) => Some(Conv::Int { bytes: size, signed: true }),
            (b'u', 1 | 2 | 4 | 8) => Some(Conv::Int { bytes: size, signed: false }),
            (b'b', 1) => Some(Conv::Bool),
            (b'c', 16) => Some(Conv::C128),
            (b'c', 8) => Some(Conv::C64),
            _ => None,
        }
    }

    /// Push the slots of `v` (a Python number of kind `kind`) in this dtype, the bits NumPy's
    /// ``np.asarray(v, dtype)`` holds; None where NumPy would raise, warn, or round in a way this does
    /// not reproduce (the library's Python path then serves the call).
    fn push(self, v: &Bound<'_, PyAny>, kind: u64, slots: &mut Slots) -> Option<()> {
        let value = Value::read(v, kind)?;
        match (self, value) {
            (Conv::C128 | Conv::C64, Value::Complex(re, im)) => {
                let single = self == Conv::C64;
                slots.push(real_bits(re, single)?);
                slots.push(real_bits(im, single)?);
            }
            (Conv::C128 | Conv::C64, other) => {
                let single = self == Conv::C64;
                slots.push(Conv::scalar(if single { Conv::F32 } else { Conv::F64 }, other)?);
                slots.push(0);
            }
            (c, other) => slots.push(Conv::scalar(c, other)?),
        }
        Some(())
    }

    /// The bits of a real value in a real dtype.
    fn scalar(self, value: Value) -> Option<u64> {
        match (self, value) {
            (Conv::F64, Value::Real(x)) => real_bits(x, false),
            (Conv::F32, Value::Real(x)) => real_bits(x, true),
            (Conv::F16, Value::Real(x)) => {
                let h = crate::ir::f16_bits(x);
                // an overflow to infinity is NumPy's RuntimeWarning: the Python path's
                (!x.is_finite() || h & 0x7c00 != 0x7c00).then_some(h as u64)
            }
            // exact in float64 below 2^53; beyond, both round to nearest even
            (Conv::F64, Value::Int(x)) => Some((x as f64).to_bits()),
            // exact below 2^24 and 2^11 (NumPy may round twice beyond)
            (Conv::F32, Value::Int(x)) => (x.unsigned_abs() <= 1 << 24).then_some((x as f32).to_bits() as u64),
            (Conv::F16, Value::Int(x)) => (x.unsigned_abs() <= 1 << 11).then_some(crate::ir::f16_bits(x as f64) as u64),
            (Conv::Int { bytes, signed }, Value::Int(x)) => {
                let bits = 8 * bytes;
                let fits = match (signed, bits) {
                    (true, 64) => true,
                    (true, _) => (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&x),
                    (false, 64) => x >= 0,
                    (false, _) => (0..(1i64 << bits)).contains(&x),
                };
                // out of range: NumPy's OverflowError, raised by the Python path
                fits.then(|| if bits == 64 { x as u64 } else { (x as u64) & ((1u64 << bits) - 1) })
            }
            (Conv::Bool, Value::Int(x)) => (x == 0 || x == 1).then_some(x as u64),
            _ => None,
        }
    }
}

/// The bits of `x` in float64, or float32 when `single` (None for a finite value that overflows:
/// NumPy warns).
fn real_bits(x: f64, single: bool) -> Option<u64> {
    if !single {
        return Some(x.to_bits());
    }
    let f = x as f32;
    (f.is_finite() || !x.is_finite()).then_some(f.to_bits() as u64)
}

/// A registered kind of call.
struct Entry {
    /// The operation (a ufunc, or the library's function), kept alive: its address is in the key.
    _op: Py<PyAny>,
    kernel: Arc<CompiledKernel>,
    /// Per new result: how it is boxed and its item size (none with an `out=` array).
    outs: Vec<(Py<ArrayInfo>, i64)>,
    /// Per operand: how its number is passed (None for an array).
    convs: Vec<Option<Conv>>,
}

static TABLE: Mutex<Option<FastMap<Key, Arc<Entry>>>> = Mutex::new(None);

/// Calls served so far (for tests: which path a call took).
static SERVED: AtomicU64 = AtomicU64::new(0);

/// How many calls [`known_call`] has served in this process.
#[pyfunction]
pub fn known_served() -> u64 {
    SERVED.load(Ordering::Relaxed)
}

/// The array class (the `cls` of the first registered result), once something is registered.
static ARRAY_CLASS: OnceLock<Py<PyType>> = OnceLock::new();

/// The operands of a call, read once.
struct Scan<'py> {
    key: Key,
    /// The native image of each array operand.
    images: [Option<Bound<'py, NativeArray>>; MAX_OPERANDS],
    /// The `out=` array's image.
    out: Option<Bound<'py, NativeArray>>,
    /// The iteration space: the operands' broadcast shape.
    shape: Vec<u64>,
    queue: Queue,
}

/// Whether an array of this shape, these byte strides and this item size is C-contiguous (NumPy's
/// rule: any layout of an empty array; axes of length 1 take any stride).
fn c_contiguous(shape: &[u64], strides: &[u64], itemsize: u64) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected = itemsize;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n != 1 && s != expected {
            return false;
        }
        expected = expected.wrapping_mul(n);
    }
    true
}

/// Whether an array is C-contiguous in its own shape (it may still broadcast).
fn own_c_contiguous(img: &NativeArray) -> bool {
    let (_, dims, strides, itemsize) = img.words_layout();
    c_contiguous(dims, strides, itemsize)
}

/// The byte range `[low, high)` an array's elements lie in (strides may be negative).
fn extent(img: &NativeArray) -> (i128, i128) {
    let (data, shape, strides, itemsize) = img.words_layout();
    if shape.contains(&0) {
        return (data as i128, data as i128);
    }
    let (mut low, mut high) = (data as i128, data as i128 + itemsize as i128);
    for (&n, &s) in shape.iter().zip(strides) {
        let reach = (n as i128 - 1) * (s as i64) as i128;
        if reach < 0 {
            low += reach;
        } else {
            high += reach;
        }
    }
    (low, high)
}

/// NumPy's broadcast of `shape` into `into` (aligned at the right); false when they do not broadcast.
fn broadcast_into(into: &mut Vec<u64>, shape: &[u64]) -> bool {
    if shape.len() > into.len() {
        let pad = shape.len() - into.len();
        into.splice(0..0, std::iter::repeat_n(1, pad));
    }
    let off = into.len() - shape.len();
    for (d, &n) in into[off..].iter_mut().zip(shape) {
        if *d == 1 {
            *d = n;
        } else if n != 1 && n != *d {
            return false;
        }
    }
    true
}

/// The native image of `o` when it is a numba_ext array (exactly the array class). An image that
/// cannot be made is None too: the library's path then serves the call, and raises its own error.
fn image<'py>(o: &Bound<'py, PyAny>, cls: &Py<PyType>) -> PyResult<Option<Bound<'py, NativeArray>>> {
    if !o.get_type().is(cls.bind(o.py())) {
        return Ok(None);
    }
    Ok(o.getattr(intern!(o.py(), "_nx")).ok().and_then(|nx| nx.cast_into::<NativeArray>().ok()))
}

/// An array's key word: its element type, rank and layout over the iteration space `shape`; None
/// when its type string does not leave room for them.
fn array_word(img: &NativeArray, shape: &[u64]) -> Option<u64> {
    let code = img.info().dtype_code();
    if code == 0 || code & !(1 << 63) >= 1 << RANK_SHIFT {
        return None;
    }
    let (_, dims, strides, itemsize) = img.words_layout();
    let whole = dims == shape && c_contiguous(dims, strides, itemsize);
    Some(code | (dims.len() as u64) << RANK_SHIFT | if whole { 0 } else { STRIDED })
}

/// Read the operands (and the `out=` array) of a call of `op`; None when the call is not of a kind
/// this serves.
fn scan<'py>(
    op: &Bound<'py, PyAny>,
    operands: &Bound<'py, PyTuple>,
    out: Option<&Bound<'py, PyAny>>,
    cls: &Py<PyType>,
) -> PyResult<Option<Scan<'py>>> {
    let n = operands.len();
    if n == 0 || n > MAX_OPERANDS {
        return Ok(None);
    }
    let mut key: Key = [0; 5 + MAX_OPERANDS];
    let mut images: [Option<Bound<'py, NativeArray>>; MAX_OPERANDS] = Default::default();
    let mut first: Option<(usize, u32)> = None;
    let mut shape: Vec<u64> = Vec::new();
    let mut same = |img: &NativeArray, shape: &mut Vec<u64>| {
        let here = (img.queue(), img.usm_code());
        *first.get_or_insert(here) == here && broadcast_into(shape, img.words_layout().1)
    };
    for (i, o) in operands.iter().enumerate() {
        key[5 + i] = if o.is_exact_instance_of::<PyFloat>() {
            FLOAT
        } else if o.is_exact_instance_of::<PyBool>() {
            BOOL
        } else if o.is_exact_instance_of::<PyInt>() {
            INT
        } else if o.is_exact_instance_of::<PyComplex>() {
            COMPLEX
        } else {
            let Some(img) = image(&o, cls)? else { return Ok(None) };
            if !same(img.get(), &mut shape) {
                return Ok(None);
            }
            images[i] = Some(img);
            0 // set below, once the iteration space is known
        };
    }
    let out = match out {
        None => None,
        Some(o) => match image(o, cls)? {
            Some(img) if same(img.get(), &mut shape) => Some(img),
            _ => return Ok(None),
        },
    };
    let Some((queue_addr, usm_code)) = first else { return Ok(None) };
    if shape.len() > MAX_RANK || out.as_ref().is_some_and(|o| o.get().words_layout().1 != &shape[..]) {
        return Ok(None);
    }
    for (i, img) in images.iter().enumerate() {
        if let Some(img) = img {
            let Some(word) = array_word(img.get(), &shape) else { return Ok(None) };
            if out.is_none() && shape.len() >= 2 && !own_c_contiguous(img.get()) {
                // new results follow the operands' memory order (NumPy's 'K'): the library's path
                return Ok(None);
            }
            key[5 + i] = word;
        }
    }
    if let Some(o) = &out {
        let Some(word) = array_word(o.get(), &shape) else { return Ok(None) };
        key[4] = word;
    }
    // an array's meminfo holds its queue: alive while the array is
    let queue = unsafe { Queue::from_ptr(queue_addr as *const std::ffi::c_void) };
    key[0] = op.as_ptr() as u64;
    key[1] = queue.device().id() as u64;
    key[2] = usm_code as u64;
    key[3] = shape.len() as u64 | (n as u64) << 8 | (out.is_some() as u64) << 16;
    Ok(Some(Scan { key, images, out, shape, queue }))
}

/// Append an array's slots: its data address and, when it is strided or broadcast over the
/// iteration space `shape`, its byte strides over that space (0 along the axes it broadcasts).
fn push_array(slots: &mut Slots, img: &NativeArray, word: u64, shape: &[u64]) {
    let (data, dims, strides, _) = img.words_layout();
    slots.push(data);
    if word & STRIDED != 0 {
        let pad = shape.len() - dims.len();
        slots.extend(&vec![0; pad]);
        for ((&n, &st), &m) in dims.iter().zip(strides).zip(&shape[pad..]) {
            slots.push(if n == 1 && m != 1 { 0 } else { st });
        }
    }
}

/// Serve `op(*operands)` (into `out` when given: one numba_ext array that receives the result) if
/// the call is of a registered kind: its result (`out` itself when given; a tuple for several
/// results). None otherwise (the caller takes the library's path).
#[pyfunction]
#[pyo3(signature = (op, operands, out = None))]
pub fn known_call<'py>(
    op: &Bound<'py, PyAny>,
    operands: &Bound<'py, PyTuple>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = op.py();
    let Some(cls) = ARRAY_CLASS.get() else { return Ok(None) };
    let Some(s) = scan(op, operands, out, cls)? else { return Ok(None) };
    let entry = {
        let table = TABLE.lock().unwrap_or_else(|p| p.into_inner());
        match table.as_ref().and_then(|t| t.get(&s.key)) {
            Some(e) => e.clone(),
            None => return Ok(None),
        }
    };
    if let Some(o) = &s.out {
        if !apart(o.get(), &s) {
            return Ok(None);
        }
    }
    let mut slots = Slots::new();
    for (i, (o, conv)) in operands.iter().zip(&entry.convs).enumerate() {
        match (&s.images[i], conv) {
            (Some(img), _) => push_array(&mut slots, img.get(), s.key[5 + i], &s.shape),
            (None, Some(conv)) => {
                if conv.push(&o, s.key[5 + i], &mut slots).is_none() {
                    return Ok(None);
                }
            }
            (None, None) => return Ok(None),
        }
    }
    let nitems = s.shape.iter().product::<u64>();
    let result = match (out, &s.out) {
        (Some(out), Some(img)) => {
            push_array(&mut slots, img.get(), s.key[4], &s.shape);
            out.clone()
        }
        _ => {
            let mut results = Vec::with_capacity(entry.outs.len());
            let dims: Vec<i64> = s.shape.iter().map(|&d| d as i64).collect();
            for (info, itemsize) in &entry.outs {
                let nbytes = (nitems as usize).checked_mul(*itemsize as usize).ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err(format!("array of shape {dims:?} is too large"))
                })?;
                let (obj, data) =
                    new_array(py, &s.queue, &dims, nitems as i64, nbytes, *itemsize, info.bind(py).clone())?;
                slots.push(data);
                results.push(obj);
            }
            match results.len() {
                1 => results.pop().unwrap(),
                _ => PyTuple::new(py, results)?.into_any(),
            }
        }
    };
    slots.extend(&s.shape);
    slots.push(nitems);
    if nitems > 0 {
        let (kernel, queue) = (&entry.kernel, &s.queue);
        // left running (runtime/queue.rs), as the library's launches are
        py.detach(|| kernel.launch_then(queue, slots.as_slice(), Completion::Leave))?;
    }
    SERVED.fetch_add(1, Ordering::Relaxed);
    Ok(Some(result))
}

/// Whether the `out=` array `o` may be written while the operands are read: writable, and apart
/// from every array operand or the very same view of it (else the library copies the operand
/// first, as NumPy's results require).
fn apart(o: &NativeArray, s: &Scan<'_>) -> bool {
    if o.info().readonly() {
        return false;
    }
    let (low, high) = extent(o);
    let view = o.words_layout();
    s.images.iter().flatten().all(|img| {
        let (l, h) = extent(img.get());
        let w = img.get().words_layout();
        (w.0, w.1, w.2) == (view.0, view.1, view.2) || h <= low || high <= l || l == h || low == high
    })
}

/// Register the kind of the call `op(*operands)` (into `out` when given) as served by `kernel`.
/// Without `out`, the results are new C-contiguous arrays boxed with `out_infos` (one `ArrayInfo`
/// per result, with its item size). Python-number operands are passed in the dtypes
/// `scalar_dtypes` names (NumPy type strings; None for an array). The kernel takes the operands
/// (number bits; array addresses, with byte strides over the iteration space where strided or
/// broadcast), then the results likewise, the shape and the element count. Returns whether the
/// kind can be served here.
#[pyfunction]
#[pyo3(signature = (op, operands, kernel, out_infos, scalar_dtypes, out = None))]
pub fn known_add(
    op: &Bound<'_, PyAny>,
    operands: &Bound<'_, PyTuple>,
    kernel: PyRef<'_, super::compiler::PyKernel>,
    out_infos: Vec<(Py<ArrayInfo>, i64)>,
    scalar_dtypes: Vec<Option<String>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let py = op.py();
    if ARRAY_CLASS.get().is_none() {
        // the array class: that of the new results, else of the `out=` array
        let cls = match (out_infos.first(), out) {
            (Some((info, _)), _) => Some(info.get().cls().clone_ref(py)),
            (None, Some(o)) => match o.getattr(intern!(py, "_nx"))?.cast_into::<NativeArray>() {
                Ok(img) if o.get_type().is(img.get().info().cls().bind(py)) => {
                    Some(img.get().info().cls().clone_ref(py))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(cls) = cls {
            let _ = ARRAY_CLASS.set(cls);
        }
    }
    let Some(cls) = ARRAY_CLASS.get() else { return Ok(false) };
    if scalar_dtypes.len() != operands.len() || out.is_some() != out_infos.is_empty() {
        return Ok(false);
    }
    let Some(s) = scan(op, operands, out, cls)? else { return Ok(false) };
    let mut convs = Vec::with_capacity(operands.len());
    for (i, dt) in scalar_dtypes.iter().enumerate() {
        match (&s.images[i], dt) {
            (Some(_), None) => convs.push(None),
            (None, Some(dt)) => match Conv::parse(dt) {
                Some(c) => convs.push(Some(c)),
                None => return Ok(false),
            },
            _ => return Ok(false),
        }
    }
    let usm = s.key[2] as u32;
    if out_infos.iter().any(|(info, _)| info.get().dtype_code() == 0 || info.get().usm_code() != usm) {
        return Ok(false);
    }
    let outs = out_infos.into_iter().collect();
    let entry = Arc::new(Entry { _op: op.clone().unbind(), kernel: kernel.inner.clone(), outs, convs });
    let old = TABLE.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(FastMap::default).insert(s.key, entry);
    drop(old); // outside the lock: dropping Python references may run Python code
    Ok(true)
}

/// Forget every registered kind (the library's caches were cleared).
#[pyfunction]
pub fn known_clear() {
    let old = TABLE.lock().unwrap_or_else(|p| p.into_inner()).take();
    drop(old);
}

#[cfg(test)]
mod tests {
    use super::{broadcast_into, c_contiguous, Conv};

    #[test]
    fn shapes_broadcast_as_numpy() {
        let mut s = vec![];
        assert!(broadcast_into(&mut s, &[3, 1]) && broadcast_into(&mut s, &[4]) && s == [3, 4]);
        assert!(broadcast_into(&mut s, &[2, 1, 1]) && s == [2, 3, 4]);
        assert!(!broadcast_into(&mut s, &[5]));
    }

    #[test]
    fn contiguity_as_numpy() {
        assert!(c_contiguous(&[2, 3], &[24, 8], 8));
        assert!(!c_contiguous(&[2, 3], &[8, 16], 8));
        assert!(c_contiguous(&[1, 3], &[999, 8], 8));
        assert!(c_contiguous(&[0, 3], &[1, 1], 8));
        assert!(c_contiguous(&[], &[], 8));
    }

    #[test]
    fn dtypes_parse() {
        assert_eq!(Conv::parse("<f8"), Some(Conv::F64));
        assert_eq!(Conv::parse("|u1"), Some(Conv::Int { bytes: 1, signed: false }));
        assert_eq!(Conv::parse("<f2"), Some(Conv::F16));
        assert_eq!(Conv::parse("<c16"), Some(Conv::C128));
        assert_eq!(Conv::parse("<m8"), None);
        assert_eq!(Conv::parse("|b1"), Some(Conv::Bool));
    }
}
