# Runs inside the CUDA program, once, when libcuda.so.1 first calls into Python (cffi's
# embedding_init_code). pyshim.builders.libcuda fills in PYSHIM_SEARCH_PATHS. Keep it small: the
# logic lives in pyshim.embed.translate, where it can be tested without a CUDA program.
import sys

PYSHIM_SEARCH_PATHS = []
# our package first; the packages of the Python pyshim was built with last, so that a
# program's own Python (a virtualenv) keeps its own versions of them
_repo, *_more = PYSHIM_SEARCH_PATHS
if _repo not in sys.path:
    sys.path.insert(0, _repo)
sys.path.extend(_p for _p in _more if _p not in sys.path)

from pyshim.embed.signals import release_sigint  # noqa: E402

release_sigint()  # before anything imports `signal` and keeps Python's SIGINT handler

from _pyshim_cuda import ffi  # noqa: E402  (the module cffi made of libcuda.so.1)

from pyshim.embed import translate as _translate  # noqa: E402


@ffi.def_extern()
def pyshim_embed_translate(image, size, target, out, out_len, status):
    # every exception is caught inside: status tells C what happened (it starts at -1,
    # so a function that failed to attach is never mistaken for success)
    code, text = _translate.translate(ffi.buffer(image, size)[:], ffi.string(target).decode())
    _translate.write_c_string(ffi, out, out_len, text)
    status[0] = code
    return 0
