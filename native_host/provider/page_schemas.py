"""A page tool's `inputSchema`: compiled without fetching anything, checked without stalling the loop
(design.md §5 "Calls"; docs/internals/native-host.md "Page tools"). Over 400 lines on
purpose: compiling and checking share one budget context (`_CURRENT`) and the regex router that
reads it; split apart, the router's contract would span two modules.

```
compile_schema(schema) ──► InputSchema   (once per schema, on the tool's first call, in a worker thread)
    > 64 KiB of JSON                        → refusal: every call is an isError
    not a valid JSON Schema, or too deep    → not enforced (a page's broken schema never blocks its tool)
    meta-schema check and walk over 2 s     → refusal
    walk every subschema, follow every $ref / $dynamicRef / $recursiveRef in a Registry that holds
    only this schema (its retrieve refuses: no network, no files)
        a ref that leaves the schema        → refusal naming the ref
    compile every `pattern` / `patternProperties` key: RE2, else `regex` (lookaround,
    backreferences), else refusal naming the pattern
check_input(compiled, arguments) ──► None | a sentence for an isError
    run in a worker thread (PageToolTable.call: the loop never waits on it); every keyword call
    and regex search checks a 100 ms budget; every regex jsonschema runs goes through the
    schema's compiled patterns (RE2 is linear; `regex` gets the budget left as its timeout);
    `uniqueItems` is ours (linear; jsonschema's compares every pair of objects)
        out of time → "could not be checked in time", naming the pattern when a regex ran out
```

Regexes: jsonschema calls `re.search` for `pattern`, `patternProperties`, and the
patternProperties keys that `additionalProperties` / `unevaluatedProperties` skip (in
jsonschema's `_keywords`, `_utils`, `_legacy_keywords`). The `re` name of those three modules is
replaced by `_ROUTER`, which sends each search of a check in progress to that schema's
`_Patterns` and every other search to `re` unchanged. That is one place for every regex
jsonschema runs, without copying jsonschema's unevaluated-key search;
tests/unit/provider/test_page_schemas.py fails if a jsonschema upgrade uses `re` otherwise there.
"""

from __future__ import annotations

import contextvars
import importlib
import json
import logging
import re
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import jsonschema
import re2
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema import exceptions as jsonschema_exceptions
from jsonschema.protocols import Validator

from native_host.protocol.native import MAX_JSON_DEPTH, exceeds_depth

if TYPE_CHECKING:
    import regex  # imported where first needed: 10-25 ms the host's start does not need

log = logging.getLogger(__name__)

MAX_SCHEMA_BYTES: Final = 64 * 1024
"""Largest `inputSchema` (compact JSON) the host compiles; the worker drops larger ones already
(docs/internals/protocol.md "Page tools" caps), so only a non-webctx sender reaches this."""

CHECK_BUDGET_S: Final = 0.1
"""CPU time (of the thread that checks) one argument check may take: CPU, not wall time, so a
busy machine does not turn a legitimate check into a refusal. The check runs in a worker thread
(PageToolTable.call), so the event loop is not what this protects (under 100 ms
of loop delay); it bounds the CPU a hostile schema costs per call."""

COMPILE_BUDGET_S: Final = 2.0
"""CPU time (of the thread that compiles) compiling one schema may take (in the worker thread,
on the tool's first call): the meta-schema check and the walk. 64 KiB schemas (630 described
properties; 2,480 `$ref`s) took 0.1-0.5 s at load 8 on the 2-vCPU VM; beyond the budget every
call is an isError."""

MAX_SHOWN_CHARS: Final = 200
"""A page's ref or pattern is cut to this many characters in a message."""

_cpu_time = time.thread_time
"""The budgets' clock: CPU seconds of the calling thread (the check runs in one worker thread;
waiting for the GIL or for a core does not count, and `regex`'s timeout counts CPU time too)."""

_REF_KEYWORDS: Final = ("$ref", "$dynamicRef", "$recursiveRef")

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print the page's pattern to stderr


class _OutOfTime(Exception):
    """The check's budget ran out; `pattern` is the regex that ran out of it, if one did."""

    def __init__(self, pattern: str | None) -> None:
        super().__init__(pattern)
        self.pattern = pattern


class _Unsupported(Exception):
    """Neither RE2 nor `regex` compiles the pattern."""


def _shown(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "…"


@dataclass
class _Patterns:
    """The compiled regexes of one schema, by source text. RE2 first: linear time in the text, and
    its syntax and `$` are ECMA-262's where Python's differ (JSON Schema patterns are ECMA-262).
    What RE2 cannot compile (lookaround, backreferences) goes to `regex`, whose matching can be
    exponential, so it runs with the check's remaining budget as its timeout."""

    linear: dict[str, Any] = field(default_factory=dict)
    bounded: dict[str, regex.Pattern[str]] = field(default_factory=dict)

    def compile(self, pattern: str) -> None:
        """Compile `pattern` into the cache. Raises _Unsupported when neither engine can."""
        if pattern in self.linear or pattern in self.bounded:
            return
        try:
            self.linear[pattern] = re2.compile(pattern, _RE2_OPTIONS)
            return
        except (re2.error, UnicodeEncodeError):  # RE2 takes UTF-8: no lone surrogates
            pass
        import regex  # see the TYPE_CHECKING import

        try:
            self.bounded[pattern] = regex.compile(pattern)
        except (regex.error, ValueError, OverflowError, RecursionError) as exc:
            raise _Unsupported(pattern) from exc

    def search(self, pattern: str, text: str, deadline: float) -> bool:
        """Whether `pattern` matches somewhere in `text`. Raises _OutOfTime past `deadline`
        (`_cpu_time`: this thread's CPU seconds), _Unsupported for a pattern neither engine compiles."""
        self.compile(pattern)
        if _cpu_time() > deadline:  # many patterns times many keys in one keyword call
            raise _OutOfTime(pattern)
        linear = self.linear.get(pattern)
        if linear is not None:
            try:
                return linear.search(text) is not None
            except UnicodeEncodeError:  # a lone surrogate (JSON allows "\ud800"): match it as U+FFFD
                fixed = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
                return linear.search(fixed) is not None
        left = deadline - _cpu_time()
        if left <= 0:
            raise _OutOfTime(pattern)
        try:
            # timeout= counts this thread's CPU time, not wall time; concurrent=True lets the
            # event loop's thread take the GIL meanwhile (RE2 keeps it, but is linear).
            return self.bounded[pattern].search(text, timeout=left, concurrent=True) is not None
        except TimeoutError:
            raise _OutOfTime(pattern) from None


@dataclass
class _Check:
    patterns: _Patterns
    deadline: float


_CURRENT: contextvars.ContextVar[_Check | None] = contextvars.ContextVar("page_schema_check", default=None)


class _RegexRouter:
    """Stands in for `re` in jsonschema's keyword modules (see the module docstring)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    @staticmethod
    def search(pattern: str, string: str, flags: int = 0) -> bool | re.Match[str] | None:
        check = _CURRENT.get()
        if check is None or flags:
            return re.search(pattern, string, flags)
        return check.patterns.search(pattern, string, check.deadline)


_ROUTER: Final = _RegexRouter()
ROUTED_MODULES: Final = ("jsonschema._keywords", "jsonschema._utils", "jsonschema._legacy_keywords")
for _name in ROUTED_MODULES:
    importlib.import_module(_name).re = _ROUTER  # type: ignore[attr-defined]


def _timed(keyword: Any) -> Any:
    """`keyword` (a jsonschema keyword function), raising _OutOfTime once the check's budget is
    spent: every keyword of every subschema passes here, so `$ref` chains, combinators and long
    arrays are bounded too."""

    def timed(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        check = _CURRENT.get()
        if check is not None and _cpu_time() > check.deadline:
            raise _OutOfTime(None)
        errors = keyword(validator, value, instance, schema)
        if errors:
            yield from errors

    return timed


def _json_key(value: Any) -> Any:
    """A hashable key equal for JSON values JSON Schema calls equal (1 and 1.0; objects whatever
    their key order; never true and 1). Raises RecursionError for absurd nesting."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", value)  # Python: 1 == 1.0 and hash(1) == hash(1.0)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _json_key(item)) for key, item in value.items()))
    return ("other", id(value))


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """`uniqueItems` in linear time: jsonschema's compares every pair of unsortable items (objects),
    one keyword call the budget cannot interrupt: 3,000 objects took 9.6 s."""
    if not unique or not validator.is_type(instance, "array"):
        return
    check = _CURRENT.get()
    keys: set[Any] = set()
    for index, item in enumerate(instance):
        if index % 1024 == 1023 and check is not None and _cpu_time() > check.deadline:
            raise _OutOfTime(None)
        keys.add(_json_key(item))
    if len(keys) < len(instance):
        yield jsonschema_exceptions.ValidationError(f"{instance!r} has non-unique elements")


def _bounded_class(base: type[Validator]) -> type[Validator]:
    keywords = dict(base.VALIDATORS)
    if "uniqueItems" in keywords:
        keywords["uniqueItems"] = _unique_items
    timed = {name: _timed(function) for name, function in keywords.items()}
    extended: type[Validator] = jsonschema.validators.extend(base, validators=timed)  # type: ignore[no-untyped-call]
    return extended


_BOUNDED: dict[type[Validator], type[Validator]] = {}


def _refuse(uri: str) -> referencing.Resource[Any]:
    """The registry's retrieve: webctx never fetches a schema."""
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs alias


@dataclass(frozen=True)
class InputSchema:
    """A compiled `inputSchema`: `validator` None = arguments are not checked; `refusal` set =
    every call is an isError with that sentence (the schema cannot be checked safely)."""

    validator: Validator | None = None
    refusal: str | None = None
    patterns: _Patterns = field(default_factory=_Patterns)


def _outside_ref(ref: str) -> str:
    return (
        f"The tool's inputSchema refers to `{_shown(ref)}`, which is not inside the schema. "
        "webctx never fetches schemas (from the network or from files), so the arguments cannot "
        "be checked and the page was not called. The page's author should put the referenced "
        "schema into the inputSchema (under `$defs`) and refer to it as `#/$defs/…`."
    )


def _unsupported_pattern(pattern: str) -> str:
    return (
        f"The tool's inputSchema has the pattern `{_shown(pattern)}`, which webctx cannot run "
        "(neither RE2 nor the `regex` module compiles it), so the arguments cannot be checked and "
        "the page was not called."
    )


def _own_registry(root: referencing.jsonschema.SchemaResource) -> referencing.Registry[Any]:
    """A registry of `root` and the resources it embeds (`$id`, anchors), crawled once (an
    uncrawled one crawls the whole schema again on every lookup of a URI: 43 s for 2,480 refs in
    64 KiB); its retrieve refuses."""
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
    crawled: referencing.Registry[Any] = registry.with_resource(root.id() or "", root).crawl()
    return crawled


def _walk(schema: Mapping[str, Any], specification: Any, patterns: _Patterns) -> str | None:
    """Visit every subschema of `schema` and every schema a ref reaches; return a refusal
    sentence for the first ref that leaves the schema or pattern no engine compiles, else None.
    Raises RecursionError for absurd nesting (the
    caller treats it as a broken schema), _OutOfTime past the deadline of the check in progress."""
    root = specification.create_resource(schema)
    resolver = _own_registry(root).resolver(base_uri=root.id() or "")
    pending: list[tuple[referencing.jsonschema.SchemaResource, Any]] = [(root, resolver)]
    seen: set[int] = set()  # a subschema's place fixes its base URI: one visit each
    check = _CURRENT.get()
    while pending:
        if check is not None and _cpu_time() > check.deadline:
            raise _OutOfTime(None)
        resource, outer = pending.pop()
        here = outer.in_subresource(resource)
        contents = resource.contents
        if not isinstance(contents, Mapping) or id(contents) in seen:
            continue
        seen.add(id(contents))
        for keyword in _REF_KEYWORDS:
            ref = contents.get(keyword)
            if not isinstance(ref, str):
                continue
            try:
                resolved = here.lookup(ref)
            except referencing.exceptions.Unresolvable:
                return _outside_ref(ref)
            pending.append((specification.create_resource(resolved.contents), resolved.resolver))
        texts = [contents.get("pattern")]
        if isinstance(contents.get("patternProperties"), Mapping):
            texts += list(contents["patternProperties"])
        for text in texts:
            if isinstance(text, str):
                try:
                    patterns.compile(text)
                except _Unsupported:
                    return _unsupported_pattern(text)
        pending.extend((sub, here) for sub in resource.subresources())
    return None


def compile_schema(schema: Mapping[str, Any] | None) -> InputSchema:
    """Compile a page tool's `inputSchema` (JSON Schema, the dialect its `$schema` names, else
    2020-12) as the module docstring shows. Never fetches, never reads a file, never raises."""
    if not schema:
        return InputSchema()
    try:
        size = len(json.dumps(schema, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):  # nested too deep for any validator: broken
        log.info("a page tool's inputSchema is nested too deeply; arguments are not checked")
        return InputSchema()
    if size > MAX_SCHEMA_BYTES:
        return InputSchema(
            refusal=f"The tool's inputSchema is larger than webctx checks ({MAX_SCHEMA_BYTES // 1024} KiB "
            "of JSON), so the arguments cannot be checked and the page was not called."
        )
    patterns = _Patterns()
    token = _CURRENT.set(_Check(patterns, _cpu_time() + COMPILE_BUDGET_S))
    try:
        with warnings.catch_warnings():  # an unknown `$schema` warns (to stderr); 2020-12 is used
            warnings.simplefilter("ignore", DeprecationWarning)
            base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        _check_schema(base, schema)
        specification = referencing.jsonschema.specification_with(
            base.META_SCHEMA.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
        )
        refusal = _walk(schema, specification, patterns)
        if refusal is not None:
            log.info("a page tool's inputSchema is refused: a ref leaves it, or no engine runs a pattern")
            return InputSchema(refusal=refusal)
        bounded = _BOUNDED.get(base) or _BOUNDED.setdefault(base, _bounded_class(base))
        registry = _own_registry(specification.create_resource(schema))
        return InputSchema(validator=bounded(schema, registry=registry), patterns=patterns)
    except (jsonschema_exceptions.SchemaError, RecursionError):
        log.info("a page tool's inputSchema is not a valid JSON Schema; arguments are not checked")
        return InputSchema()
    except _OutOfTime:
        return InputSchema(
            refusal=f"The tool's inputSchema takes webctx over {COMPILE_BUDGET_S:g} s to read, so the "
            "arguments cannot be checked and the page was not called."
        )
    finally:
        _CURRENT.reset(token)


def _check_schema(base: type[Validator], schema: Mapping[str, Any]) -> None:
    """`base.check_schema(schema)` (jsonschema 4.26's own steps: the meta-schema's validator with
    its format checker, the first error raised), with every keyword bounded by the compile's
    deadline. Raises SchemaError, _OutOfTime."""
    meta_class = jsonschema.validators.validator_for(base.META_SCHEMA, default=base)
    bounded = _BOUNDED.get(meta_class) or _BOUNDED.setdefault(meta_class, _bounded_class(meta_class))
    meta = bounded(base.META_SCHEMA, format_checker=meta_class.FORMAT_CHECKER)
    for error in meta.iter_errors(dict(schema)):
        raise jsonschema_exceptions.SchemaError.create_from(error)


def _field_path(error: jsonschema_exceptions.ValidationError) -> str:
    return "/".join(str(part) for part in error.absolute_path)


def check_input(schema: Mapping[str, Any] | InputSchema | None, arguments: Any) -> str | None:
    """Validate `arguments` against a page tool's `inputSchema` (or its InputSchema). Returns None
    when valid or when the schema is not enforced, else a sentence for the isError: the field and
    the violation, the schema's refusal, or that the check ran out of its CHECK_BUDGET_S. Pure
    and blocking: call it off the event loop (PageToolTable.call does, in a worker thread)."""
    compiled = schema if isinstance(schema, InputSchema) else compile_schema(schema)
    if compiled.refusal is not None:
        return compiled.refusal
    if compiled.validator is None:
        return None
    if exceeds_depth(arguments, MAX_JSON_DEPTH):  # jsonschema recurses with the arguments' depth
        return (
            f"The arguments are nested deeper than {MAX_JSON_DEPTH} levels, so they could not be "
            "checked against the tool's inputSchema and the page was not called. Send flatter arguments."
        )
    token = _CURRENT.set(_Check(compiled.patterns, _cpu_time() + CHECK_BUDGET_S))
    try:
        error = jsonschema_exceptions.best_match(compiled.validator.iter_errors(arguments))
    except _OutOfTime as exc:
        which = f" (the pattern `{_shown(exc.pattern)}` ran out of it)" if exc.pattern else ""
        return (
            f"The arguments could not be checked against the tool's inputSchema within "
            f"{CHECK_BUDGET_S * 1000:g} ms{which}, so the page was not called. Shorter arguments "
            "may pass; the page's author should simplify the schema."
        )
    except _Unsupported as exc:  # `additionalProperties` joins patternProperties keys with "|"
        return _unsupported_pattern(str(exc.args[0]))
    except referencing.exceptions.Unresolvable as exc:  # _walk found every ref; kept as a backstop
        return _outside_ref(str(getattr(exc, "ref", exc)))
    except Exception:  # recursion and the like: fail closed, an unchecked call never reaches the page
        log.info("checking arguments against a page tool's inputSchema failed; the call is refused")
        return (
            "The arguments could not be checked against the tool's inputSchema (the check failed), "
            "so the page was not called. Simpler arguments may pass."
        )
    finally:
        _CURRENT.reset(token)
    if error is None:
        return None
    where = _field_path(error)
    message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
    place = f"field `{where}`" if where else "the arguments object"
    return f"Invalid arguments: {place}: {message}. Fix the arguments to match the tool's inputSchema."
