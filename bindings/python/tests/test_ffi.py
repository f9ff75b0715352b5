"""The ctypes declarations against weida.h: a changed C signature fails
here instead of corrupting memory at run time."""

import ctypes
import re

import weida
from weida import _ffi
from support import BoundedCase, header_path

# C parameter type (const and names stripped) -> the ctypes type it needs.
C_TYPES = {
    "int": ctypes.c_int, "size_t": ctypes.c_size_t, "double": ctypes.c_double,
    "uint32_t": ctypes.c_uint32, "uint64_t": ctypes.c_uint64, "void": None,
    "char*": ctypes.c_char_p, "void*": ctypes.c_void_p, "void**": ctypes.POINTER(ctypes.c_void_p),
    "size_t*": ctypes.POINTER(ctypes.c_size_t), "int*": ctypes.POINTER(ctypes.c_int),
    "uint64_t*": ctypes.POINTER(ctypes.c_uint64), "char**": ctypes.POINTER(ctypes.c_char_p),
    "weida_done_fn": _ffi.DONE_FN,
    "weida_log_fn": _ffi.LOG_FN,
    "weida_runtime_opts_t*": ctypes.POINTER(_ffi.RuntimeOpts),
    "weida_guarantees_t*": ctypes.POINTER(_ffi.Guarantees),
    "weida_bind_opts_t*": ctypes.POINTER(_ffi.BindOpts),
    "weida_endpoint_opts_t*": ctypes.POINTER(_ffi.EndpointOpts),
    "weida_drop_counts_t*": ctypes.POINTER(_ffi.DropCounts),
    "weida_survey_counts_t*": ctypes.POINTER(_ffi.SurveyCounts),
    "weida_segment_opts_t*": ctypes.POINTER(_ffi.SegmentOpts),
    "weida_join_opts_t*": ctypes.POINTER(_ffi.JoinOpts),
    "weida_dish_drops_t*": ctypes.POINTER(_ffi.DishDrops),
    "weida_connection_stats_t*": ctypes.POINTER(_ffi.ConnectionStats),
}


def canonical(param: str, named: bool = True):
    """The ctypes type of one C parameter ("const char *path") or return type."""
    param = re.sub(r"\bconst\b", "", param).strip()
    if named:  # drop the parameter's name: the identifier after the type
        param = re.match(r"^(.*?)\w+$", param, re.S).group(1)
    ctype = re.sub(r"\s+", "", param)
    if re.fullmatch(r"weida_\w+_t", ctype) and ctype not in C_TYPES:
        return ctypes.c_uint64  # every handle typedef is uint64_t
    if re.fullmatch(r"weida_\w+_t\*", ctype) and ctype not in C_TYPES:
        return ctypes.POINTER(ctypes.c_uint64)
    return C_TYPES[ctype]


def header_prototypes():
    text = header_path().read_text().split("#ifndef WEIDA_BUILDING_LIBRARY", 1)[1]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    found = {}
    for ret, name, params in re.findall(r"([\w \*]+?)\s*\b(weida_\w+)\s*\(([^;{]*?)\)\s*;", text, re.S):
        args = [] if params.strip() == "void" else [canonical(p) for p in params.split(",")]
        found[name] = (canonical(ret, named=False), tuple(args))
    return found


class Declarations(BoundedCase):
    def test_every_header_function_is_declared_alike(self):
        header = header_prototypes()
        self.assertGreater(len(header), 100)
        self.assertEqual(sorted(header), sorted(_ffi.SIGNATURES))
        for name, (ret, args) in header.items():
            with self.subTest(name=name):
                self.assertEqual(_ffi.SIGNATURES[name], (ret, args))

    def test_struct_layouts_lead_with_size(self):
        for struct in (_ffi.RuntimeOpts, _ffi.BindOpts, _ffi.EndpointOpts, _ffi.DropCounts, _ffi.SurveyCounts,
                       _ffi.SegmentOpts, _ffi.JoinOpts, _ffi.DishDrops, _ffi.ConnectionStats):
            self.assertEqual(struct._fields_[0], ("size", ctypes.c_size_t))

    def test_abi_version_and_library_location(self):
        header_abi = int(re.search(r"#define WEIDA_ABI_VERSION (\d+)", header_path().read_text()).group(1))
        self.assertEqual(_ffi.ABI_VERSION, header_abi)
        self.assertEqual(_ffi.lib.weida_abi_version(), header_abi)
        self.assertTrue(_ffi.LIBRARY_PATH.endswith("libweida.so"))
        self.assertTrue(weida.__file__)
