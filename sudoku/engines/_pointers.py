"""Raw pointers into numpy arrays for the numba kernels of ``big`` and ``nb``.

numba counts references on arrays: every call that takes an array, and every view of one, costs an
atomic ``NRT_incref`` and ``NRT_decref`` (a call even for an array with a null meminfo). A pointer
is a plain value, so kernels that pass pointers in their hot loop pay none of it. ``band``, the
independent checker, keeps its own copy (``_row``): it shares nothing with ``nb``.
"""

from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic


@intrinsic
def at(typingctx, array, offset):
    """A raw pointer to flat element ``offset`` of a C-contiguous ``array``, indexed as a 1-D array
    is. Only while the caller holds the array: a pointer keeps nothing alive."""
    if not isinstance(array, types.Array) or array.layout != "C":
        raise TypingError(f"at() needs a C-contiguous array, not {array}")  # a flat offset is only right there

    def codegen(context, builder, signature, args):
        proxy = cgutils.create_struct_proxy(signature.args[0])(context, builder, value=args[0])
        return builder.gep(proxy.data, [args[1]])

    return types.CPointer(array.dtype)(array, types.intp), codegen
