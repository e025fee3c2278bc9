"""Each client's hook payloads, turned into one event shape, and each client's way of answering.

Sources (checked against each client's current reference): Claude Code hooks (settings.json; stdin
``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``,
``tool_response``; ``PostToolUseFailure`` carries ``error``); Codex (``hooks.json``, the same shape,
no failure event: ``PostToolUse`` fires for every call); Cursor (``hooks.json`` version 1; stdin
``conversation_id``, ``workspace_roots``; ``postToolUseFailure`` carries ``error_message``; answers
are JSON with ``additional_context`` / ``continue``); Gemini CLI (settings.json; ``AfterTool``'s
``tool_response.error``; stdout must be JSON only).
"""

from __future__ import annotations

from ..redact import redact_field
from ..storage import spool_json as codec
from ..transcripts.calls import (
    args_summary,
    as_text as _text,
    clip as _clip,
    response_error,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..models import JSONObject

CLIENTS = ("claude-code", "codex", "cursor", "gemini")

# Our event names (the `hindsight hook <event>` argument) and each client's native name for them.
KINDS = ("session-start", "prompt", "tool", "tool-failure", "stop", "pre-compact", "session-end")
NATIVE: dict[str, dict[str, str]] = {
    "claude-code": {
        "session-start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "tool": "PostToolUse",
        "tool-failure": "PostToolUseFailure",
        "stop": "Stop",
        "pre-compact": "PreCompact",
        "session-end": "SessionEnd",
    },
    "codex": {
        "session-start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "tool": "PostToolUse",
        "stop": "Stop",
        "pre-compact": "PreCompact",
    },
    "cursor": {
        "session-start": "sessionStart",
        "prompt": "beforeSubmitPrompt",
        "tool": "postToolUse",
        "tool-failure": "postToolUseFailure",
        "stop": "stop",
        "pre-compact": "preCompact",
        "session-end": "sessionEnd",
    },
    "gemini": {
        "session-start": "SessionStart",
        "prompt": "BeforeAgent",
        "tool": "AfterTool",
        "stop": "AfterAgent",
        "pre-compact": "PreCompress",
        "session-end": "SessionEnd",
    },
}
# Events whose answer the client puts in front of the model.
_CONTEXT_EVENTS = {
    "claude-code": {"session-start", "prompt", "tool", "tool-failure"},
    "codex": {"session-start", "prompt", "tool"},
    # beforeSubmitPrompt can only allow or block
    "cursor": {"session-start", "tool", "tool-failure"},
    "gemini": {"session-start", "prompt", "tool"},
}
_MAX_ERROR = 1200
_MAX_ERROR_LINE = 300


class Event:
    """One hook call, whatever the client: what happened, in which session and project. (A plain
    class, not a dataclass: see ``Settings``.)"""

    def __init__(
        self,
        client: str,
        kind: str,
        session: str,
        cwd: str,
        tool: str = "",
        args: str = "",
        error: str = "",
        prompt: str = "",
        source: str = "",
        redactions: int = 0,
        extra: dict[str, str | bool] | None = None,
    ) -> None:
        self.client, self.kind, self.session, self.cwd = client, kind, session, cwd
        self.tool, self.args, self.error, self.prompt = tool, args, error, prompt
        # session start: startup | resume | clear | compact
        self.source = source
        self.redactions = redactions
        # the transcript's path; whether the user interrupted the call; the call's family, the
        # error's signature and line (``kind``)
        self.extra: dict[str, str | bool] = extra if extra is not None else {}
        # the call's input and its whole error (redacted), read for its kind
        self.tool_input: object = None
        self.full_error = ""

    def failure_kind(self) -> str | None:
        """``family | signature`` of a failed call (``lessons.signatures``), noting the parts in
        ``extra``; only a failure, or a success that may fix one, pays for it (``re``)."""
        from ..lessons import signatures
        from ..transcripts.calls import clip, command_text

        if "family" not in self.extra:
            self.extra["family"] = (
                signatures.call_family(self.tool, command_text(self.tool_input)) or ""
            )
        family = str(self.extra["family"])
        if self.failed and family and "signature" not in self.extra:
            sign, line = signatures.read_error(self.full_error)
            self.extra["signature"] = sign or ""
            self.extra["error_line"] = clip(line or "", _MAX_ERROR_LINE) if sign else ""
        return signatures.kind(family, str(self.extra.get("signature") or ""))

    @property
    def failed(self) -> bool:
        return self.kind == "tool-failure"


def kind_of(client: str, name: str, payload: JSONObject) -> str:
    """Our event name from the argument (ours or the client's), else from the payload."""
    native = {v.lower(): k for k, v in NATIVE.get(client, {}).items()}
    for candidate in (name, str(payload.get("hook_event_name") or "")):
        lowered = candidate.lower()
        if lowered in KINDS:
            return lowered
        if lowered in native:
            return native[lowered]
    raise ValueError(f"unknown hook event {name!r} for {client}")


def normalize(client: str, name: str, payload: JSONObject) -> Event:
    """The client's payload as an ``Event``; every text that may be stored is redacted here."""
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}")
    kind = kind_of(client, name, payload)
    roots = payload.get("workspace_roots")
    cwd = str(payload.get("cwd") or (roots[0] if isinstance(roots, list) and roots else "") or "")
    session = str(
        payload.get("session_id")
        or payload.get("conversation_id")
        or payload.get("sessionId")
        or ""
    )
    event = Event(
        client,
        kind,
        session,
        cwd,
        source=str(payload.get("source") or payload.get("trigger") or ""),
    )
    # mined, from where it was last mined, when the session closes
    if payload.get("transcript_path"):
        event.extra["transcript"] = str(payload["transcript_path"])
    count = 0
    if kind == "prompt":
        event.prompt, count = redact_field(
            _text(payload.get("prompt") or payload.get("user_prompt")), "prompt"
        )
    elif kind in ("tool", "tool-failure"):
        event.tool, _ = redact_field(
            str(payload.get("tool_name") or payload.get("toolName") or "tool"), "tool"
        )
        tool_input = (
            payload.get("tool_input") if "tool_input" in payload else payload.get("toolArgs")
        )
        event.args, n = args_summary(tool_input)
        # the failure's kind is read from the whole command and error, before they are clipped
        event.tool_input = tool_input
        if payload.get("tool_use_id"):
            # the call a failure memory comes from (Claude Code's tool_use_id)
            event.extra["call"], _ = redact_field(str(payload["tool_use_id"]), "call")
        error = ""
        if kind == "tool-failure":
            if payload.get("is_interrupt"):
                # the user pressed stop: not the tool's fault
                error = ""
            else:
                error = _text(
                    payload.get("error")
                    or payload.get("error_message")
                    or payload.get("tool_error")
                    or "failed"
                )
        else:
            error = response_error(payload.get("tool_response", payload.get("tool_output")))
        if error:
            event.kind = "tool-failure"
        elif kind == "tool-failure":
            # an interrupt: neither a failure nor a fix
            event.kind = "tool"
            event.extra["interrupted"] = True
        error, m = redact_field(error, "error")
        event.full_error = error
        event.error = _clip(error, _MAX_ERROR)
        count = n + m
    event.redactions = count
    return event


def respond(client: str, kind: str, context: str | None) -> str:
    """What to print on stdout: the recalled ``context`` in the client's format, or the neutral
    answer."""
    native = NATIVE.get(client, {}).get(kind, kind)
    give = bool(context) and kind in _CONTEXT_EVENTS.get(client, set())
    if client == "cursor":
        if kind == "prompt":
            return codec.dumps({"continue": True})
        return codec.dumps({"additional_context": context} if give else {})
    if give:
        return codec.dumps(
            {"hookSpecificOutput": {"hookEventName": native, "additionalContext": context}}
        )
    # Gemini parses stdout as JSON; the others accept nothing
    return "{}" if client == "gemini" else ""
