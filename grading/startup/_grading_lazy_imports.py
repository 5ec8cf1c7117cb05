"""Run at every start of this environment's Python (``make install`` puts this file and a .pth that imports it
in site-packages; tests/test_environment.py checks the installed copy is this one).

jsonschema imports rfc3987_syntax for its optional "iri" and "iri-reference" format checks, and rfc3987_syntax
compiles a Lark grammar at import: about 2 CPU-seconds in every process that imports jsonschema, which is every
process that imports nbformat (each nbgrader command, each grading worker, the report, Jupyter's servers). Here
the module is a stand-in until something uses it: its ``is_valid_syntax`` (the one name jsonschema takes) and
any other attribute load the real module then, so every check gives what it gave, and a process that never
checks an IRI (no schema this course validates has one) never pays for the grammar.
"""

import importlib.util
import sys
import types

_NAME = "rfc3987_syntax"


def _real():
    module = sys.modules.get(_NAME)
    if isinstance(module, _Deferred):
        del sys.modules[_NAME]
        try:
            module = importlib.import_module(_NAME)
        except BaseException:
            sys.modules[_NAME] = _deferred
            raise
    return module


def is_valid_syntax(*args, **kwargs):
    return _real().is_valid_syntax(*args, **kwargs)


class _Deferred(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real(), name)


_deferred = _Deferred(_NAME, "rfc3987_syntax, loaded when first used (_grading_lazy_imports)")
_deferred.is_valid_syntax = is_valid_syntax
if _NAME not in sys.modules and importlib.util.find_spec(_NAME) is not None:
    sys.modules[_NAME] = _deferred
