"""The attributes Clang knows, for the warning it gives for any other (``unknown attribute 'X' ignored``,
-Wunknown-attributes, on by default). A program that names an attribute no compiler knows builds (Clang drops it),
but its build log says so: clFFT's generated kernels put
``__attribute__((max_constant_size(N)))`` on their ``__constant`` parameters, and PoCL 3.1's and Oclgrind 21.10's
logs carry the warning for each.

``KNOWN`` was measured, not typed: every identifier in Clang 15's ``libclang-cpp.so.15`` (82,465 strings) written
as ``int v __attribute__((NAME));`` and built with ``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64
-fsyntax-only``; the names that draw no "unknown attribute" warning, macros aside, are Clang's attributes (its
GNU spellings, whatever they apply to: Objective-C's and CUDA's are known in an OpenCL build too). Five more draw
none for PoCL's triple ``x86_64-pc-linux-gnu`` alone (``interrupt``, ...): they are known here, so that no build
says what one of the two devices does not.

``__has_attribute`` is not this list's: it answers 1 only for what the simulator supports (``features.py``)."""

from __future__ import annotations

import re

from wia_sim.kernels.tokens import Token, tokenize

__all__ = ["KNOWN", "normalized", "unknown_attributes"]

KNOWN = frozenset(
    """
NSObject __clang_arm_mve_strict_polymorphism __const aarch64_sve_pcs aarch64_vector_pcs abi_tag
acquire_capability acquire_handle acquire_shared_capability acquired_after acquired_before address_space alias
align_value aligned alloc_align alloc_size always_destroy always_inline amdgpu_flat_work_group_size
amdgpu_kernel amdgpu_num_sgpr amdgpu_num_vgpr amdgpu_waves_per_eu analyzer_noreturn annotate
argument_with_type_tag arm_sve_vector_bits artificial assert_capability assert_exclusive_lock
assert_shared_capability assert_shared_lock assume assume_aligned availability blocks bounded btf_decl_tag
btf_type_tag callable_when callback called_once capability carries_dependency cdecl cf_audited_transfer
cf_consumed cf_returns_not_retained cf_returns_retained cf_unknown_transfer cfi_canonical_jump_table
clang_builtin_alias cleanup cmse_nonsecure_call cold common const constant constructor consumable
consumable_auto_cast_state consumable_set_state_on_read convergent cpu_dispatch cpu_specific cudart_builtin
deprecated destructor device device_builtin device_builtin_surface_type device_builtin_texture_type
diagnose_as_builtin diagnose_if disable_sanitizer_instrumentation disable_tail_calls enable_if enforce_tcb
enforce_tcb_leaf enum_extensibility error exclude_from_explicit_instantiation exclusive_lock_function
exclusive_locks_required exclusive_trylock_function ext_vector_type external_source_symbol fallthrough fastcall
flag_enum flatten force_align_arg_pointer format format_arg function_return global gnu_inline guarded_by
guarded_var host hot ibaction iboutlet iboutletcollection ifunc init_priority intel_ocl_bicc
intel_reqd_sub_group_size internal_linkage interrupt kernel launch_bounds leaf lifetimebound
loader_uninitialized lock_returned lockable locks_excluded lto_visibility_public malloc managed matrix_type
may_alias mig_server_routine min_vector_width minsize mode ms_abi ms_struct musttail naked neon_polyvector_type
neon_vector_type no_address_safety_analysis no_builtin no_caller_saved_registers no_destroy
no_instrument_function no_profile_instrument_function no_randomize_layout no_sanitize no_sanitize_address
no_sanitize_memory no_sanitize_thread no_speculative_load_hardening no_split_stack no_stack_protector
no_thread_safety_analysis nocf_check nocommon nodebug noderef noduplicate noescape noinline nomerge nonnull
noreturn nosvm not_tail_called nothrow ns_consumed ns_consumes_self ns_error_domain ns_returns_autoreleased
ns_returns_not_retained ns_returns_retained nv_weak objc_arc_weak_reference_unavailable objc_boxable objc_bridge
objc_bridge_mutable objc_bridge_related objc_class_stub objc_designated_initializer objc_direct
objc_direct_members objc_exception objc_externally_retained objc_gc objc_independent_class objc_method_family
objc_non_runtime_protocol objc_nonlazy_class objc_ownership objc_precise_lifetime
objc_protocol_requires_explicit_implementation objc_requires_property_definitions objc_requires_super
objc_returns_inner_pointer objc_root_class objc_runtime_name objc_runtime_visible objc_subclassing_restricted
opencl_constant opencl_generic opencl_global opencl_global_device opencl_global_host opencl_local opencl_private
opencl_unroll_hint optnone os_consumed os_consumes_this os_returns_not_retained os_returns_retained
os_returns_retained_on_non_zero os_returns_retained_on_zero overloadable ownership_holds ownership_returns
ownership_takes packed param_typestate pascal pass_dynamic_object_size pass_object_size patchable_function_entry
pcs pointer_with_type_tag preferred_name preserve_all preserve_most pt_guarded_by pt_guarded_var pure
randomize_layout regcall regparm reinitializes release_capability release_generic_capability release_handle
release_shared_capability reqd_work_group_size require_constant_initialization requires_capability
requires_shared_capability retain return_typestate returns_nonnull returns_twice scoped_lockable section
selectany sentinel set_typestate shared shared_capability shared_lock_function shared_locks_required
shared_trylock_function speculative_load_hardening standalone_debug stdcall swift_async swift_async_context
swift_async_error swift_async_name swift_attr swift_bridge swift_bridged_typedef swift_context swift_error
swift_error_result swift_indirect_result swift_name swift_newtype swift_objc_members swift_private swift_wrapper
swiftasynccall swiftcall sycl_kernel sycl_special_class sysv_abi target target_clones test_typestate thiscall
tls_model transparent_union trivial_abi try_acquire_capability try_acquire_shared_capability
type_tag_for_datatype type_visibility unavailable uninitialized unlock_function unused use_handle used
using_if_exists vec_type_hint vecreturn vector_size vectorcall visibility warn_unused warn_unused_result warning
weak weak_import weakref work_group_size_hint xray_always_instrument xray_log_args xray_never_instrument
zero_call_used_regs
    """.split()  # noqa: SIM905 (312 names: a list of them one per line would be the module)
)


def normalized(name: str) -> str:
    """Clang's name for an attribute written ``__x__`` (``__aligned__`` is ``aligned``)."""
    return name[2:-2] if len(name) > 4 and name.startswith("__") and name.endswith("__") else name


_ATTRIBUTE_RE = re.compile(r"\b__attribute(?:__)?\b")


def unknown_attributes(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` (a preprocessed program) names an attribute that is not ``KNOWN`` in a GNU
    ``__attribute__((...))`` list: the line, column and name as written of each, in order."""
    found: list[tuple[int, int, str]] = []
    line, counted = 1, 0  # the line of offset ``counted``
    for m in _ATTRIBUTE_RE.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        line += text.count("\n", counted, start)
        counted = start
        end = text.find("\n", m.end())
        while True:  # the keyword's line and those after it, until its list closes or the text ends
            names = _names(tokenize(text[start : len(text) if end < 0 else end], line), line, m.start() - start + 1)
            if names is not None or end < 0:
                break
            end = text.find("\n", end + 1)
        found += [(t.line, t.column, t.text) for t in names or () if normalized(t.text) not in KNOWN]
    return found


def _names(tokens: list[Token], line: int, column: int) -> list[Token] | None:
    """The attribute names of the list whose ``__attribute__`` keyword is at ``line`` and ``column`` of
    ``tokens``: those before anything out of place (the parser's error), none if the keyword is in a string
    literal; None if the tokens end before the list does."""
    words = [t for t in tokens if t.kind not in ("ws", "nl")]
    k = next((k for k, t in enumerate(words) if t.line == line and t.column == column and t.kind == "id"), None)
    if k is None:  # (in a string literal)
        return []
    if len(words) < k + 3:
        return None
    if words[k + 1].text != "(" or words[k + 2].text != "(":
        return []
    names: list[Token] = []
    k += 3
    while k < len(words):
        t = words[k]
        if t.text == ")":
            return names
        if t.text == ",":  # (an empty entry is allowed)
            k += 1
            continue
        if t.kind != "id":
            return names
        names.append(t)
        k += 1
        if k < len(words) and words[k].text == "(":  # its arguments
            depth = 0
            while k < len(words):
                depth += {"(": 1, ")": -1}.get(words[k].text, 0)
                k += 1
                if not depth:
                    break
            else:
                return None
    return None
