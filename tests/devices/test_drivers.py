"""Registration of the OpenCL drivers with the ICD loader (``devices/drivers.py``): a vendors folder
named after its listing, holding the system's vendor files plus the drivers found with Python
packages; a user's own ``OCL_ICD_VENDORS`` is kept."""

import os

from numba_ext.devices import drivers


def test_register_builds_a_stable_vendors_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("OCL_ICD_VENDORS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("OCL_ICD_FILENAMES", os.environ.get("OCL_ICD_FILENAMES", ""))
    folder = drivers.register()
    if folder is None:  # no vendor file and no driver at all: nothing to register
        assert not drivers._system_vendor_files() and not drivers._candidate_intel_cpu()
        return
    assert folder.startswith(str(tmp_path)) and os.environ["OCL_ICD_VENDORS"] == folder
    files = sorted(os.listdir(folder))
    assert files and all(f.endswith(".icd") for f in files)
    for name in drivers._system_vendor_files():
        assert name in files  # the system's vendor files are kept
    for f in files:
        with open(os.path.join(folder, f)) as fh:
            assert fh.read().strip()  # each names a driver library
    monkeypatch.delenv("OCL_ICD_VENDORS")
    assert drivers.register() == folder  # the same listing, the same folder


def test_a_users_own_vendors_folder_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("OCL_ICD_VENDORS", str(tmp_path))
    assert drivers.register() is None
    assert os.environ["OCL_ICD_VENDORS"] == str(tmp_path)


def test_an_inherited_folder_of_ours_names_the_drivers_again(tmp_path, monkeypatch):
    # a child process (multiprocessing's spawn, a Dask worker) inherits OCL_ICD_VENDORS naming our
    # folder but may not inherit our additions to OCL_ICD_FILENAMES, which NVIDIA's CUDA toolkit
    # loader reads instead of the folder: registering again restores them
    fake = tmp_path / "libnvidia-opencl.so.1"
    fake.write_text("")
    monkeypatch.setattr(drivers, "_candidate_nvidia", lambda: [str(fake)])
    monkeypatch.setattr(drivers, "_system_vendor_files", lambda: {})
    monkeypatch.setattr(drivers, "_candidate_intel_cpu", lambda: [])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("OCL_ICD_VENDORS", raising=False)
    monkeypatch.setenv("OCL_ICD_FILENAMES", "libpocl.so.2")
    folder = drivers.register()
    assert folder is not None and drivers._is_our_folder(folder)
    assert os.environ["OCL_ICD_FILENAMES"].split(":")[-1] == str(fake)
    monkeypatch.setenv("OCL_ICD_FILENAMES", "libpocl.so.2")  # what the child got
    assert drivers.register() == folder
    assert os.environ["OCL_ICD_FILENAMES"] == f"libpocl.so.2:{fake}"
    assert drivers.register() == folder  # once only
    assert os.environ["OCL_ICD_FILENAMES"] == f"libpocl.so.2:{fake}"
