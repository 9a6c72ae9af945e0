"""The exception hierarchy. Every library error derives from :class:`NumbaExtError`; the Rust core
maps each of its error kinds to one of these classes (``rust/src/python/errors.rs``)."""


class NumbaExtError(Exception):
    """Base of every numba_ext error."""


class ExecutionPlacementError(NumbaExtError, ValueError):
    """The execution queue cannot be inferred from the data (compute follows data)."""


class DeviceSelectorError(NumbaExtError, ValueError):
    """A device selector matched no device."""


class USMError(NumbaExtError, MemoryError):
    """USM allocation, copy or free failed."""


class OpenCLError(NumbaExtError, RuntimeError):
    """An OpenCL call failed; the message names the call and the CL error."""


class BuildError(NumbaExtError, RuntimeError):
    """The OpenCL driver could not build a program; the message carries the build log."""


class CodegenError(NumbaExtError, RuntimeError):
    """LLVM code generation failed (a bug in numba_ext: please report it)."""


class KernelSpecError(NumbaExtError, RuntimeError):
    """An invalid kernel description reached the compiler (a bug in numba_ext)."""


class UnsupportedError(NumbaExtError, TypeError):
    """The code uses something numba_ext cannot offload (or the device cannot run)."""


class KernelTypingError(UnsupportedError):
    """A kernel or device function could not be typed for its arguments (an operand of the wrong
    type, an atomic on an element type it does not support, no matching explicit signature)."""


class LaunchError(NumbaExtError, ValueError):
    """A kernel launch was malformed."""


class DeviceFaultError(LaunchError, RuntimeError):
    """A kernel failed while running on the device (NVIDIA's driver reports an out-of-bounds access
    as ``CL_UNKNOWN_ERROR``); the message names the kernel and the queue. That queue is refused from
    then on (every launch and copy on it raises this error; ``Queue.faulted`` says what happened):
    create a new queue. Other queues keep working (on NVIDIA, those of other contexts)."""


class KernelArgumentError(NumbaExtError, TypeError):
    """A kernel was called with the wrong number or kinds of arguments."""


class ArrayInterfaceError(NumbaExtError, TypeError, ValueError):
    """A ``__sycl_usm_array_interface__`` that does not follow the protocol (the message names the
    field and its value); a TypeError for a field of the wrong type and a ValueError for a bad value
    alike."""


class InteropError(NumbaExtError, ValueError):
    """A queue, device or array of another SYCL runtime (dpctl, dpnp) that numba_ext cannot share
    memory with: not an OpenCL device, or a SYCL runtime whose interop entry points are missing."""


class MixedUSMTypeWarning(UserWarning):
    """Arrays of different USM types were mixed in one computation (may cost performance)."""


class QueueMismatchWarning(UserWarning):
    """An offload_to() context names a queue that is not the one the data lives on."""


class CacheWarning(UserWarning):
    """The on-disk program cache cannot be used (e.g. its directory cannot be written); programs are
    then cached in memory only, for the process."""
